#include "LazyLibraryProbe.h"
#include "lazy_library.h"

#define MISSING_FUNCTIONS(F, V, P) F(int, pianola_probe_function, (int a), (a))
#define LAZY_LIBRARY_NAME missing
LAZY_LIBRARY(missing, "libpianola-probe.so.0", "pianola-probe", MISSING_FUNCTIONS)
#undef LAZY_LIBRARY_NAME

const char *probe_open_missing_library(void) { return lazy_library_open(&missing); }

#define LIBM_FUNCTIONS(F, V, P) F(int, pianola_probe_other_function, (int a), (a))
#define LAZY_LIBRARY_NAME libm
LAZY_LIBRARY(libm, "libm.so.6", "libc6", LIBM_FUNCTIONS)

const char *probe_open_library_without_function(void) { return lazy_library_open(&libm); }
