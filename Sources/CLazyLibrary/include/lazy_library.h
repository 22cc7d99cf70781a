/* A C library opened when it is first used, not when the program starts: a game that plays
   through ALSA never loads libjack or libpipewire, and one that plays audio files alone never
   loads libfluidsynth and the 50 libraries it brings.

   The library's own C target lists the functions it calls as F(return, name, (parameters),
   (arguments)) and V(name, (parameters), (arguments)) for the void ones (P(name) for one it
   calls through `lazy_name` itself, a variadic one), and passes the list to LAZY_LIBRARY, which defines each function as a trampoline to the address dlsym gave for
   it, so that Swift calls libfluidsynth's names as before. Each definition must agree with the
   library's header, which the compiler checks. Its wrapper module calls lazy_library_open
   first, to report a missing library in one line; a trampoline reached before that opens the
   library itself, and ends the program with that line if it cannot. */
#ifndef LAZY_LIBRARY_H
#define LAZY_LIBRARY_H

#include <stdatomic.h>
#include <stddef.h>

/* One run-time library: what to open, what to look up, and whether that has been done. */
struct lazy_library {
    const char *soname;               /* e.g. "libjack.so.0" */
    const char *package;              /* the Debian package that installs it, for the message */
    const char *const *symbols;       /* the functions' names, `count` of them */
    void **const *addresses;          /* where each function's address goes */
    size_t count;
    atomic_int state;                 /* 0 not tried, 1 opened, -1 failed */
    char error[320];                  /* why it failed, one line */
};

/* Opens the library and looks up every function, once; later calls return what the first did.
   Returns NULL, or why it cannot be opened, one line that stays valid. Any thread. */
const char *lazy_library_open(struct lazy_library *library);

/* lazy_library_open, or the program ends with its message on stderr. Any thread. */
void lazy_library_open_or_exit(struct lazy_library *library);

/* What every trampoline does first: once the library is open, one atomic load, so the render
   thread may call a trampoline. Any thread. */
static inline void lazy_library_require(struct lazy_library *library) {
    if (__builtin_expect(atomic_load_explicit(&library->state, memory_order_acquire) != 1, 0))
        lazy_library_open_or_exit(library);
}

#define LAZY_POINTER_F(ret, name, params, args) static __typeof__(&name) lazy_##name;
#define LAZY_POINTER_V(name, params, args) static __typeof__(&name) lazy_##name;
#define LAZY_POINTER_P(name) static __typeof__(&name) lazy_##name;
#define LAZY_SYMBOL_P(name) #name,
#define LAZY_ADDRESS_P(name) (void **)&lazy_##name,
#define LAZY_DEFINE_P(name)
#define LAZY_SYMBOL_F(ret, name, params, args) #name,
#define LAZY_SYMBOL_V(name, params, args) #name,
#define LAZY_ADDRESS_F(ret, name, params, args) (void **)&lazy_##name,
#define LAZY_ADDRESS_V(name, params, args) (void **)&lazy_##name,
#define LAZY_DEFINE_F(ret, name, params, args) \
    ret name params { lazy_library_require(&LAZY_LIBRARY_NAME); return lazy_##name args; }
#define LAZY_DEFINE_V(name, params, args) \
    void name params { lazy_library_require(&LAZY_LIBRARY_NAME); lazy_##name args; }

/* Defines `variable` (a struct lazy_library for `soname`) and a trampoline for each function
   of FUNCTIONS(F, V, P). Define LAZY_LIBRARY_NAME as `variable` first. */
#define LAZY_LIBRARY(variable, soname_, package_, FUNCTIONS) \
    FUNCTIONS(LAZY_POINTER_F, LAZY_POINTER_V, LAZY_POINTER_P) \
    static const char *const variable##_symbols[] = { FUNCTIONS(LAZY_SYMBOL_F, LAZY_SYMBOL_V, LAZY_SYMBOL_P) }; \
    static void **const variable##_addresses[] = { FUNCTIONS(LAZY_ADDRESS_F, LAZY_ADDRESS_V, LAZY_ADDRESS_P) }; \
    static struct lazy_library variable = { \
        .soname = soname_, .package = package_, .symbols = variable##_symbols, \
        .addresses = variable##_addresses, \
        .count = sizeof variable##_symbols / sizeof variable##_symbols[0], \
    }; \
    FUNCTIONS(LAZY_DEFINE_F, LAZY_DEFINE_V, LAZY_DEFINE_P)

#endif
