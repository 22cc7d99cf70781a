#include "CShims.h"
#include "last_error.h"
#include <fluidsynth.h>
#include <string.h>

static void capture(int level, const char *message, void *data) {
    (void)level; (void)data;
    strncpy(pianola_last_error, message ? message : "", sizeof pianola_last_error - 1);
    pianola_last_error[sizeof pianola_last_error - 1] = '\0';
}

void pianola_fluid_capture_errors(void) {
    fluid_set_log_function(FLUID_PANIC, capture, NULL);
    fluid_set_log_function(FLUID_ERR, capture, NULL);
    fluid_set_log_function(FLUID_WARN, NULL, NULL);
    fluid_set_log_function(FLUID_INFO, NULL, NULL);
    fluid_set_log_function(FLUID_DBG, NULL, NULL);
}
