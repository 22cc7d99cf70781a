#include "CShims.h"
#include "last_error.h"
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void capture(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(pianola_last_error, sizeof pianola_last_error, "%s: ", function ? function : "alsa");
    if (n < 0 || (size_t)n >= sizeof pianola_last_error) n = 0;
    vsnprintf(pianola_last_error + n, sizeof pianola_last_error - (size_t)n, fmt, ap);
    va_end(ap);
    if (err) {
        size_t len = strlen(pianola_last_error);
        snprintf(pianola_last_error + len, sizeof pianola_last_error - len, ": %s", snd_strerror(err));
    }
}

void pianola_alsa_capture_errors(void) { snd_lib_error_set_handler(capture); }

void pianola_alsa_restore_errors(void) { snd_lib_error_set_handler(NULL); }
