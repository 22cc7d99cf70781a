#include "CShims.h"
#include "last_error.h"
#include <string.h>

_Thread_local char pianola_last_error[512];

size_t pianola_take_last_error(char *buffer, size_t size) {
    size_t len = strlen(pianola_last_error);
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buffer, pianola_last_error, n);
        buffer[n] = '\0';
    }
    pianola_last_error[0] = '\0';
    return len;
}
