/* libjack for Swift: its header, with the library itself opened on first use (lazy_library.h). */
#include <jack/jack.h>
#include <jack/transport.h>
#include <stddef.h>

/* Opens libjack.so.0, once: NULL, or why it cannot be, in one line. Any thread. */
const char *cjack_open(void);

/* jack_client_open is variadic, which Swift cannot call: the same call, naming the server
   when `server` is not NULL (else libjack takes $JACK_DEFAULT_SERVER, or "default"). */
jack_client_t *shim_jack_client_open(const char *name, jack_options_t options, jack_status_t *status, const char *server);
