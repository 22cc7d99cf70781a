#include "CFluidSynthShims.h"
#include "CFluidSynth.h"
#include <pthread.h>
#include <string.h>

/* The calling thread's first glib message since it last took one. */
static _Thread_local char first_message[512];

/* The handler before the first capture began, restored when the last one ends. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int captures;
static cfluidsynth_glib_log_function previous;

/* libinstpatch (libfluidsynth's DLS reader) reports through glib's log: keep the first
   message, which names what went wrong first rather than its last consequence. */
static void capture(const char *domain, int level, const char *message, void *data) {
    (void)domain; (void)level; (void)data;
    if (first_message[0] != '\0') return;
    strncpy(first_message, message ? message : "", sizeof first_message - 1);
    first_message[sizeof first_message - 1] = '\0';
}

void shim_glib_begin_capture(void) {
    pthread_mutex_lock(&lock);
    if (captures++ == 0) previous = g_log_set_default_handler(capture, NULL);
    pthread_mutex_unlock(&lock);
}

void shim_glib_end_capture(void) {
    pthread_mutex_lock(&lock);
    if (--captures == 0) g_log_set_default_handler(previous, NULL);
    pthread_mutex_unlock(&lock);
}

size_t shim_take_glib_message(char *buffer, size_t size) {
    return shim_take_message(first_message, buffer, size);
}
