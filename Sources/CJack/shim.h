#include <jack/jack.h>

/* jack_client_open is variadic, which Swift cannot call: the same call, naming the server
   when `server` is not NULL (else libjack takes $JACK_DEFAULT_SERVER, or "default"). */
static inline jack_client_t *shim_jack_client_open(const char *name, jack_options_t options, jack_status_t *status, const char *server) {
    return server ? jack_client_open(name, (jack_options_t)(options | JackServerName), status, server) : jack_client_open(name, options, status);
}
