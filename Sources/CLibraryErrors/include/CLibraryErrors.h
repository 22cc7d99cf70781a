#ifndef PIANOLA_CLIBRARYERRORS_H
#define PIANOLA_CLIBRARYERRORS_H
#include <stddef.h>

/// Each thread's last message from a C library whose errors the shims catch (alsa-lib's,
/// libfluidsynth's): a per-thread buffer with no lock and no allocation, so a message logged on
/// the render thread costs nothing unsafe. The wrapper that made the failing call takes it as
/// the reason of its error.

/// The calling thread's last captured library message, written by the shims' handlers.
extern _Thread_local char shim_captured_message[512];

/// Copies `captured` into `buffer` (NUL-terminated, truncated to `size`), clears it and
/// returns its length. Any thread.
size_t shim_take_message(char *captured, char *buffer, size_t size);

/// Copies the calling thread's last captured message into `buffer` (NUL-terminated, truncated
/// to `size`) and clears it. Returns its length, 0 when there is none. Any thread.
size_t shim_take_last_error(char *buffer, size_t size);

#endif
