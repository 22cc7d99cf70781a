/* libfluidsynth for Swift: its header, with the library itself opened on first use
   (lazy_library.h), and the part of GLib that catches libinstpatch's messages. */
#include <fluidsynth.h>
#include <stddef.h>

/* Opens libfluidsynth.so.3, once: NULL, or why it cannot be, in one line. Any thread. */
const char *cfluidsynth_open(void);

/* GLib's log handler, which libinstpatch (libfluidsynth's DLS reader) reports through. GLib
   comes with libfluidsynth and is looked up through it, so Pianola does not link it. */
typedef void (*cfluidsynth_glib_log_function)(const char *domain, int level, const char *message, void *data);
cfluidsynth_glib_log_function g_log_set_default_handler(cfluidsynth_glib_log_function function, void *data);
