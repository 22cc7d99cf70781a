#include "lazy_library.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One lock for every library's first open: opening is rare and done by no render thread. */
static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;

static void fail(struct lazy_library *library, const char *what) {
    snprintf(library->error, sizeof library->error, "%s (install Debian's %s)", what, library->package);
    atomic_store_explicit(&library->state, -1, memory_order_release);
}

static void open_locked(struct lazy_library *library) {
    /* Where the loader looks: the caller's runpath (libpianola's is its own folder, where a
       game that ships its libraries puts them), LD_LIBRARY_PATH, the system's folders. */
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        /* dlerror names the file it missed: this library, or one that it needs. */
        const char *why = dlerror();
        char what[256];
        if (why && !strstr(why, library->soname)) snprintf(what, sizeof what, "%s cannot be loaded: %s", library->soname, why);
        else snprintf(what, sizeof what, "%s is not installed", library->soname);
        fail(library, what);
        return;
    }
    for (size_t i = 0; i < library->count; i++) {
        void *address = dlsym(handle, library->symbols[i]);
        if (!address) {
            char what[256];
            snprintf(what, sizeof what, "%s has no %s: it is older than Pianola needs", library->soname, library->symbols[i]);
            dlclose(handle);
            fail(library, what);
            return;
        }
        *library->addresses[i] = address;
    }
    atomic_store_explicit(&library->state, 1, memory_order_release);
}

const char *lazy_library_open(struct lazy_library *library) {
    if (atomic_load_explicit(&library->state, memory_order_acquire) == 0) {
        pthread_mutex_lock(&opening);
        if (atomic_load_explicit(&library->state, memory_order_relaxed) == 0) open_locked(library);
        pthread_mutex_unlock(&opening);
    }
    return atomic_load_explicit(&library->state, memory_order_acquire) == 1 ? NULL : library->error;
}

void lazy_library_open_or_exit(struct lazy_library *library) {
    const char *error = lazy_library_open(library);
    if (!error) return;
    fprintf(stderr, "pianola: %s\n", error);
    exit(1);
}
