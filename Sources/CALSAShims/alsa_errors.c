#include "CALSAShims.h"
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void capture(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(shim_captured_message, sizeof shim_captured_message, "%s: ", function ? function : "alsa");
    if (n < 0 || (size_t)n >= sizeof shim_captured_message) n = 0;
    vsnprintf(shim_captured_message + n, sizeof shim_captured_message - (size_t)n, fmt, ap);
    va_end(ap);
    if (err) {
        size_t len = strlen(shim_captured_message);
        snprintf(shim_captured_message + len, sizeof shim_captured_message - len, ": %s", snd_strerror(err));
    }
}

void shim_alsa_capture_errors(void) { snd_lib_error_set_handler(capture); }

void shim_alsa_restore_errors(void) { snd_lib_error_set_handler(NULL); }
