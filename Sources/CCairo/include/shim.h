/* cairo (Debian's libcairo2-dev) for Swift: its headers, with the library itself opened on first
   use (lazy_library.h), so that only `pianola roll` loads libcairo and the X11, font and image
   libraries it brings (1.9 MB of a render's resident memory). include/cairo links to cairo's
   header folder. */
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>

/* Opens libcairo.so.2, once: NULL, or why it cannot be, in one line. Any thread. */
const char *ccairo_open(void);
