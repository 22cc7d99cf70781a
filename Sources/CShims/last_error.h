#ifndef PIANOLA_LAST_ERROR_H
#define PIANOLA_LAST_ERROR_H
#include <stddef.h>
/// The calling thread's last captured library message (internal to the shims).
extern _Thread_local char shim_captured_message[512];
/// Copies `captured` into `buffer` (NUL-terminated, truncated to `size`), clears it and
/// returns its length (internal to the shims).
size_t shim_take_message(char *captured, char *buffer, size_t size);
#endif
