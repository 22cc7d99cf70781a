#include "shim.h"
#include "lazy_library.h"

/* Every libsoxr function Pianola calls, as lazy_library.h defines them. */
#define FUNCTIONS(F, V, P) \
    F(soxr_t, soxr_create, (double a, double b, unsigned c, soxr_error_t *d, soxr_io_spec_t const *e, \
                            soxr_quality_spec_t const *f, soxr_runtime_spec_t const *g), (a, b, c, d, e, f, g)) \
    V(soxr_delete, (soxr_t a), (a)) \
    F(soxr_io_spec_t, soxr_io_spec, (soxr_datatype_t a, soxr_datatype_t b), (a, b)) \
    F(soxr_error_t, soxr_process, (soxr_t a, soxr_in_t b, size_t c, size_t *d, soxr_out_t e, size_t f, size_t *g), \
      (a, b, c, d, e, f, g)) \
    F(soxr_quality_spec_t, soxr_quality_spec, (unsigned long a, unsigned long b), (a, b))

#define LAZY_LIBRARY_NAME soxr
LAZY_LIBRARY(soxr, "libsoxr.so.0", "libsoxr0", FUNCTIONS)

const char *csoxr_open(void) { return lazy_library_open(&soxr); }
