#ifndef PIANOLA_LAST_ERROR_H
#define PIANOLA_LAST_ERROR_H
/// The calling thread's last captured library message (internal to the shims).
extern _Thread_local char shim_captured_message[512];
#endif
