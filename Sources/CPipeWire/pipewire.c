#include "shim.h"
#include "lazy_library.h"

/* Every libpipewire function Pianola calls (the rest of what it uses is inline in the
   headers), as lazy_library.h defines them. */
#define FUNCTIONS(F, V, P) \
    F(struct pw_core *, pw_context_connect, (struct pw_context *a, struct pw_properties *b, size_t c), (a, b, c)) \
    V(pw_context_destroy, (struct pw_context *a), (a)) \
    F(struct pw_context *, pw_context_new, (struct pw_loop *a, struct pw_properties *b, size_t c), (a, b, c)) \
    F(int, pw_core_disconnect, (struct pw_core *a), (a)) \
    V(pw_init, (int *a, char **b[]), (a, b)) \
    V(pw_main_loop_destroy, (struct pw_main_loop *a), (a)) \
    F(struct pw_loop *, pw_main_loop_get_loop, (struct pw_main_loop *a), (a)) \
    F(struct pw_main_loop *, pw_main_loop_new, (const struct spa_dict *a), (a)) \
    F(int, pw_main_loop_quit, (struct pw_main_loop *a), (a)) \
    F(int, pw_main_loop_run, (struct pw_main_loop *a), (a)) \
    F(struct pw_properties *, pw_properties_new_string, (const char *a), (a)) \
    F(int, pw_properties_set, (struct pw_properties *a, const char *b, const char *c), (a, b, c)) \
    V(pw_proxy_destroy, (struct pw_proxy *a), (a)) \
    V(pw_stream_add_listener, (struct pw_stream *a, struct spa_hook *b, const struct pw_stream_events *c, void *d), (a, b, c, d)) \
    F(int, pw_stream_connect, (struct pw_stream *a, enum spa_direction b, uint32_t c, enum pw_stream_flags d, const struct spa_pod **e, uint32_t f), (a, b, c, d, e, f)) \
    F(struct pw_buffer *, pw_stream_dequeue_buffer, (struct pw_stream *a), (a)) \
    V(pw_stream_destroy, (struct pw_stream *a), (a)) \
    F(int, pw_stream_disconnect, (struct pw_stream *a), (a)) \
    F(int, pw_stream_get_time_n, (struct pw_stream *a, struct pw_time *b, size_t c), (a, b, c)) \
    F(struct pw_stream *, pw_stream_new, (struct pw_core *a, const char *b, struct pw_properties *c), (a, b, c)) \
    F(int, pw_stream_queue_buffer, (struct pw_stream *a, struct pw_buffer *b), (a, b)) \
    V(pw_thread_loop_destroy, (struct pw_thread_loop *a), (a)) \
    F(struct pw_loop *, pw_thread_loop_get_loop, (struct pw_thread_loop *a), (a)) \
    V(pw_thread_loop_lock, (struct pw_thread_loop *a), (a)) \
    F(struct pw_thread_loop *, pw_thread_loop_new, (const char *a, const struct spa_dict *b), (a, b)) \
    F(int, pw_thread_loop_start, (struct pw_thread_loop *a), (a)) \
    V(pw_thread_loop_stop, (struct pw_thread_loop *a), (a)) \
    V(pw_thread_loop_unlock, (struct pw_thread_loop *a), (a))

#define LAZY_LIBRARY_NAME pipewire
LAZY_LIBRARY(pipewire, "libpipewire-0.3.so.0", "libpipewire-0.3-0", FUNCTIONS)

const char *cpipewire_open(void) { return lazy_library_open(&pipewire); }
