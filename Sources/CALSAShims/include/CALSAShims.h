#ifndef PIANOLA_CALSASHIMS_H
#define PIANOLA_CALSASHIMS_H
#include "CLibraryErrors.h"

/// What Swift cannot do with alsa-lib: catch its error messages, which it reports through a C
/// variadic handler, into the calling thread's buffer (CLibraryErrors).

/// Routes alsa-lib's error messages into the calling thread's buffer instead of stderr. Any thread.
void shim_alsa_capture_errors(void);

/// Restores alsa-lib's default handler (print to stderr). Any thread.
void shim_alsa_restore_errors(void);

#endif
