/* libsoxr (Debian's libsoxr-dev) for Swift: its header, with the library itself opened on
   first use (lazy_library.h), so that only a process that resamples audio loads libsoxr and
   the OpenMP runtime it brings (0.4 MB of a render's resident memory). */
#include <soxr.h>

/* Opens libsoxr.so.0, once: NULL, or why it cannot be, in one line. Any thread. */
const char *csoxr_open(void);
