#include "CShims.h"
#include "last_error.h"
#include <string.h>

_Thread_local char shim_captured_message[512];

size_t shim_take_last_error(char *buffer, size_t size) {
    size_t len = strlen(shim_captured_message);
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buffer, shim_captured_message, n);
        buffer[n] = '\0';
    }
    shim_captured_message[0] = '\0';
    return len;
}
