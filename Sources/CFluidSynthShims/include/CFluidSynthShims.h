#ifndef PIANOLA_CFLUIDSYNTHSHIMS_H
#define PIANOLA_CFLUIDSYNTHSHIMS_H
#include <stddef.h>
#include "CLibraryErrors.h"

/// What Swift cannot do with libfluidsynth: catch its log messages (and glib's, while it reads
/// a DLS bank through libinstpatch) into the calling thread's buffer (CLibraryErrors), and teach
/// its SoundFont loader to read a font from memory.

/// Routes libfluidsynth's panic and error messages into the calling thread's buffer and
/// silences its warnings, information and debug output. Any thread; affects all synths.
void shim_fluid_capture_errors(void);

/// From here to the matching `shim_glib_end_capture`, glib's log messages (libinstpatch's
/// warnings and errors while libfluidsynth reads a DLS bank through it) go to a buffer of the
/// logging thread's, which keeps the first one, instead of stderr; the handler before comes
/// back when the last capture ends. Any thread; nests.
void shim_glib_begin_capture(void);

/// Ends a capture `shim_glib_begin_capture` began. Any thread.
void shim_glib_end_capture(void);

/// Copies the calling thread's first glib message since the last call into `buffer`
/// (NUL-terminated, truncated to `size`) and clears it. Returns its length, 0 when there is
/// none. Any thread.
size_t shim_take_glib_message(char *buffer, size_t size);

/// libfluidsynth's own SoundFont loader, taught to read a font from memory: a name made by
/// `shim_fluid_memory_name` opens those bytes (which must outlive the synth), any other name
/// a file. Added to `synth` (made with `settings`), which owns it. Returns 0, or -1 if it could
/// not be made. Control thread, before the synth loads fonts.
struct _fluid_synth_t;
struct _fluid_hashtable_t;
int shim_fluid_add_memory_loader(struct _fluid_synth_t *synth, struct _fluid_hashtable_t *settings);

/// How many times libfluidsynth has read SoundFont data on the calling thread (through the
/// loader above, which reads every font, file or memory). Any thread.
long shim_fluid_font_reads(void);

/// Writes into `buffer` the name that stands for `length` bytes at `bytes`. Any thread.
void shim_fluid_memory_name(char *buffer, size_t size, const void *bytes, size_t length);

/// An anonymous file in memory holding `length` bytes at `bytes` (for libraries that read
/// only files: libinstpatch, for a DLS bank held in memory), open for reading and writing
/// through /proc/self/fd/N. Returns its descriptor, which the caller closes, or -1. Any thread.
int shim_memory_file(const char *name, const void *bytes, size_t length);

#endif
