#define _GNU_SOURCE
// ThreadSanitizer replaces malloc itself: under it nothing is counted and stop returns -1, so
// an allocation test run there fails visibly instead of passing with nothing measured.
#if defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define PIANOLA_NO_COUNTING 1
#  endif
#endif
#include "AllocationCounter.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Thread_local int counting;
static _Thread_local long count;
static _Thread_local long openmp_count;
static _Thread_local long lock_count;
static uintptr_t gomp_start, gomp_end;

static int find_gomp(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size; (void)data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libgomp")) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            gomp_start = info->dlpi_addr + ph->p_vaddr;
            gomp_end = gomp_start + ph->p_memsz;
        }
    }
    return 1;
}

static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_mutex_trylock)(pthread_mutex_t *);
static int (*real_rwlock_rdlock)(pthread_rwlock_t *);
static int (*real_rwlock_wrlock)(pthread_rwlock_t *);

static void find_locks(void) {
    if (real_mutex_lock) return;
    real_mutex_trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_trylock");
    real_rwlock_rdlock = (int (*)(pthread_rwlock_t *))dlsym(RTLD_NEXT, "pthread_rwlock_rdlock");
    real_rwlock_wrlock = (int (*)(pthread_rwlock_t *))dlsym(RTLD_NEXT, "pthread_rwlock_wrlock");
    real_mutex_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
}

void pianola_allocations_start(void) {
    if (!gomp_end) dl_iterate_phdr(find_gomp, NULL);
    find_locks();
    count = 0;
    openmp_count = 0;
    lock_count = 0;
    counting = 1;
}
#ifdef PIANOLA_NO_COUNTING
long pianola_locks_taken(void) { return -1; }
#else
long pianola_locks_taken(void) { return lock_count; }
#endif
#ifdef PIANOLA_NO_COUNTING
long pianola_allocations_stop(void) { counting = 0; return -1; }
#else
long pianola_allocations_stop(void) { counting = 0; return count; }
#endif
long pianola_allocations_by_openmp(void) { return openmp_count; }

#ifndef PIANOLA_NO_COUNTING
#define COUNT() do { if (counting) { \
    uintptr_t caller = (uintptr_t)__builtin_return_address(0); \
    if (caller >= gomp_start && caller < gomp_end) openmp_count++; else count++; } } while (0)

/* Locks taken while counting, each passed on to glibc's (found by dlsym at the first). */
int pthread_mutex_lock(pthread_mutex_t *m) {
    if (counting) lock_count++;
    if (!real_mutex_lock) find_locks();
    return real_mutex_lock(m);
}
int pthread_mutex_trylock(pthread_mutex_t *m) {
    if (counting) lock_count++;
    if (!real_mutex_trylock) find_locks();
    return real_mutex_trylock(m);
}
int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
    if (counting) lock_count++;
    if (!real_rwlock_rdlock) find_locks();
    return real_rwlock_rdlock(l);
}
int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
    if (counting) lock_count++;
    if (!real_rwlock_wrlock) find_locks();
    return real_rwlock_wrlock(l);
}

void *malloc(size_t n) { COUNT(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { COUNT(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { COUNT(); return __libc_realloc(p, n); }
void *memalign(size_t alignment, size_t n) { COUNT(); return __libc_memalign(alignment, n); }
void *aligned_alloc(size_t alignment, size_t n) { COUNT(); return __libc_memalign(alignment, n); }
int posix_memalign(void **out, size_t alignment, size_t n) {
    COUNT();
    void *p = __libc_memalign(alignment, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
#endif
