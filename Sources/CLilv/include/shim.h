/* lilv (Debian's liblilv-dev) for Swift: its header and the LV2 extensions Pianola's host
   offers, with the library itself opened on first use (lazy_library.h): a game that hosts no
   plugin never loads lilv, serd, sord and sratom. include/lilv links to lilv's header folder. */
#include <lilv/lilv.h>
#include <lv2/core/lv2.h>
#include <lv2/urid/urid.h>
#include <lv2/options/options.h>
#include <lv2/atom/atom.h>
#include <lv2/worker/worker.h>
#include <lv2/state/state.h>

/* Opens liblilv-0.so.0, once: NULL, or why it cannot be, in one line. Any thread. */
const char *clilv_open(void);
