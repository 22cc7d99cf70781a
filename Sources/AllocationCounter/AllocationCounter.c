#define _GNU_SOURCE
// ThreadSanitizer replaces malloc itself: under it nothing is counted and stop returns -1, so
// an allocation test run there fails visibly instead of passing with nothing measured.
#if defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define PIANOLA_NO_COUNTING 1
#  endif
#endif
#include "AllocationCounter.h"
#include <errno.h>
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

void pianola_allocations_start(void) {
    if (!gomp_end) dl_iterate_phdr(find_gomp, NULL);
    count = 0;
    openmp_count = 0;
    counting = 1;
}
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
