#include "CALSAShim.h"
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];

static void capture(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(last_error, sizeof last_error, "%s: ", function ? function : "alsa");
    if (n < 0 || (size_t)n >= sizeof last_error) n = 0;
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    va_end(ap);
    if (err) {
        size_t len = strlen(last_error);
        snprintf(last_error + len, sizeof last_error - len, ": %s", snd_strerror(err));
    }
}

void pianola_alsa_capture_errors(void) { snd_lib_error_set_handler(capture); }

void pianola_alsa_restore_errors(void) { snd_lib_error_set_handler(NULL); }

size_t pianola_alsa_take_last_error(char *buffer, size_t size) {
    size_t len = strlen(last_error);
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buffer, last_error, n);
        buffer[n] = '\0';
    }
    last_error[0] = '\0';
    return len;
}
