#include <jack/jack.h>

/* jack_client_open is variadic, which Swift cannot call: the same call with no server name. */
static inline jack_client_t *shim_jack_client_open(const char *name, jack_options_t options, jack_status_t *status) {
    return jack_client_open(name, options, status);
}
