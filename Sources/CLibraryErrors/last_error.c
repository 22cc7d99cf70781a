#include "CLibraryErrors.h"
#include <string.h>

_Thread_local char shim_captured_message[512];

size_t shim_take_message(char *captured, char *buffer, size_t size) {
    size_t len = strlen(captured);
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buffer, captured, n);
        buffer[n] = '\0';
    }
    captured[0] = '\0';
    return len;
}

size_t shim_take_last_error(char *buffer, size_t size) {
    return shim_take_message(shim_captured_message, buffer, size);
}
