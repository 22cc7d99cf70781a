#include "CJack.h"
#include "lazy_library.h"

/* Every libjack function Pianola calls, as lazy_library.h defines them. */
#define FUNCTIONS(F, V, P) \
    F(int, jack_activate, (jack_client_t *a), (a)) \
    F(int, jack_client_close, (jack_client_t *a), (a)) \
    F(int, jack_connect, (jack_client_t *a, const char *b, const char *c), (a, b, c)) \
    F(int, jack_deactivate, (jack_client_t *a), (a)) \
    V(jack_free, (void *a), (a)) \
    F(jack_nframes_t, jack_get_buffer_size, (jack_client_t *a), (a)) \
    F(char *, jack_get_client_name, (jack_client_t *a), (a)) \
    F(int, jack_get_cycle_times, (const jack_client_t *a, jack_nframes_t *b, jack_time_t *c, jack_time_t *d, float *e), (a, b, c, d, e)) \
    F(const char **, jack_get_ports, (jack_client_t *a, const char *b, const char *c, unsigned long d), (a, b, c, d)) \
    F(jack_nframes_t, jack_get_sample_rate, (jack_client_t *a), (a)) \
    F(jack_time_t, jack_get_time, (void), ()) \
    V(jack_on_info_shutdown, (jack_client_t *a, JackInfoShutdownCallback b, void *c), (a, b, c)) \
    F(jack_port_t *, jack_port_by_name, (jack_client_t *a, const char *b), (a, b)) \
    F(void *, jack_port_get_buffer, (jack_port_t *a, jack_nframes_t b), (a, b)) \
    V(jack_port_get_latency_range, (jack_port_t *a, jack_latency_callback_mode_t b, jack_latency_range_t *c), (a, b, c)) \
    F(const char *, jack_port_name, (const jack_port_t *a), (a)) \
    F(jack_port_t *, jack_port_register, (jack_client_t *a, const char *b, const char *c, unsigned long d, unsigned long e), (a, b, c, d, e)) \
    V(jack_set_error_function, (void (*a)(const char *)), (a)) \
    V(jack_set_info_function, (void (*a)(const char *)), (a)) \
    F(int, jack_set_process_callback, (jack_client_t *a, JackProcessCallback b, void *c), (a, b, c)) \
    F(int, jack_set_xrun_callback, (jack_client_t *a, JackXRunCallback b, void *c), (a, b, c)) \
    F(jack_transport_state_t, jack_transport_query, (const jack_client_t *a, jack_position_t *b), (a, b)) \
    P(jack_client_open)

#define LAZY_LIBRARY_NAME jack
LAZY_LIBRARY(jack, "libjack.so.0", "libjack-jackd2-0", FUNCTIONS)

const char *cjack_open(void) { return lazy_library_open(&jack); }

jack_client_t *shim_jack_client_open(const char *name, jack_options_t options, jack_status_t *status, const char *server) {
    lazy_library_require(&jack);
    return server ? lazy_jack_client_open(name, (jack_options_t)(options | JackServerName), status, server)
                  : lazy_jack_client_open(name, options, status);
}
