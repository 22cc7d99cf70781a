#ifndef PIANOLA_CALSASHIM_H
#define PIANOLA_CALSASHIM_H
#include <stddef.h>

/// Routes alsa-lib's error messages (normally printed to stderr through a C variadic
/// handler Swift cannot write) into a buffer, so the wrapper can turn them into errors.
/// Any thread; the buffer is per thread.
void pianola_alsa_capture_errors(void);

/// Restores alsa-lib's default handler (print to stderr). Any thread.
void pianola_alsa_restore_errors(void);

/// Copies the calling thread's last captured alsa-lib message into `buffer` (NUL-terminated,
/// truncated to `size`) and clears it. Returns its length, 0 when there is none. Any thread.
size_t pianola_alsa_take_last_error(char *buffer, size_t size);

#endif
