#include "CFluidSynthShims.h"
#include <fluidsynth.h>
#include <string.h>

static void capture(int level, const char *message, void *data) {
    (void)level; (void)data;
    strncpy(shim_captured_message, message ? message : "", sizeof shim_captured_message - 1);
    shim_captured_message[sizeof shim_captured_message - 1] = '\0';
}

void shim_fluid_capture_errors(void) {
    fluid_set_log_function(FLUID_PANIC, capture, NULL);
    fluid_set_log_function(FLUID_ERR, capture, NULL);
    fluid_set_log_function(FLUID_WARN, NULL, NULL);
    fluid_set_log_function(FLUID_INFO, NULL, NULL);
    fluid_set_log_function(FLUID_DBG, NULL, NULL);
}
