#include "CFluidSynth.h"
#include "lazy_library.h"

/* Every libfluidsynth function Pianola calls (and GLib's one), as lazy_library.h defines them. */
#define FUNCTIONS(F, V, P) \
    V(delete_fluid_settings, (fluid_settings_t *a), (a)) \
    V(delete_fluid_sfloader, (fluid_sfloader_t *a), (a)) \
    V(delete_fluid_synth, (fluid_synth_t *a), (a)) \
    F(int, fluid_preset_get_banknum, (fluid_preset_t *a), (a)) \
    F(const char *, fluid_preset_get_name, (fluid_preset_t *a), (a)) \
    F(int, fluid_preset_get_num, (fluid_preset_t *a), (a)) \
    F(fluid_sfont_t *, fluid_preset_get_sfont, (fluid_preset_t *a), (a)) \
    F(fluid_log_function_t, fluid_set_log_function, (int a, fluid_log_function_t b, void *c), (a, b, c)) \
    F(int, fluid_settings_setint, (fluid_settings_t *a, const char *b, int c), (a, b, c)) \
    F(int, fluid_settings_setnum, (fluid_settings_t *a, const char *b, double c), (a, b, c)) \
    F(int, fluid_settings_setstr, (fluid_settings_t *a, const char *b, const char *c), (a, b, c)) \
    F(int, fluid_sfloader_set_callbacks, (fluid_sfloader_t *a, fluid_sfloader_callback_open_t b, fluid_sfloader_callback_read_t c, fluid_sfloader_callback_seek_t d, fluid_sfloader_callback_tell_t e, fluid_sfloader_callback_close_t f), (a, b, c, d, e, f)) \
    F(int, fluid_sfont_get_id, (fluid_sfont_t *a), (a)) \
    F(fluid_preset_t *, fluid_sfont_iteration_next, (fluid_sfont_t *a), (a)) \
    V(fluid_sfont_iteration_start, (fluid_sfont_t *a), (a)) \
    V(fluid_synth_add_sfloader, (fluid_synth_t *a, fluid_sfloader_t *b), (a, b)) \
    F(int, fluid_synth_add_sfont, (fluid_synth_t *a, fluid_sfont_t *b), (a, b)) \
    F(int, fluid_synth_all_notes_off, (fluid_synth_t *a, int b), (a, b)) \
    F(int, fluid_synth_all_sounds_off, (fluid_synth_t *a, int b), (a, b)) \
    F(int, fluid_synth_cc, (fluid_synth_t *a, int b, int c, int d), (a, b, c, d)) \
    F(int, fluid_synth_channel_pressure, (fluid_synth_t *a, int b, int c), (a, b, c)) \
    F(int, fluid_synth_get_active_voice_count, (fluid_synth_t *a), (a)) \
    F(int, fluid_synth_get_cc, (fluid_synth_t *a, int b, int c, int *d), (a, b, c, d)) \
    F(fluid_preset_t *, fluid_synth_get_channel_preset, (fluid_synth_t *a, int b), (a, b)) \
    F(fluid_sfont_t *, fluid_synth_get_sfont_by_id, (fluid_synth_t *a, int b), (a, b)) \
    F(int, fluid_synth_key_pressure, (fluid_synth_t *a, int b, int c, int d), (a, b, c, d)) \
    F(int, fluid_synth_noteoff, (fluid_synth_t *a, int b, int c), (a, b, c)) \
    F(int, fluid_synth_noteon, (fluid_synth_t *a, int b, int c, int d), (a, b, c, d)) \
    F(int, fluid_synth_pin_preset, (fluid_synth_t *a, int b, int c, int d), (a, b, c, d)) \
    F(int, fluid_synth_pitch_bend, (fluid_synth_t *a, int b, int c), (a, b, c)) \
    F(int, fluid_synth_program_change, (fluid_synth_t *a, int b, int c), (a, b, c)) \
    F(int, fluid_synth_program_reset, (fluid_synth_t *a), (a)) \
    F(int, fluid_synth_remove_sfont, (fluid_synth_t *a, fluid_sfont_t *b), (a, b)) \
    F(int, fluid_synth_sfload, (fluid_synth_t *a, const char *b, int c), (a, b, c)) \
    F(int, fluid_synth_sysex, (fluid_synth_t *a, const char *b, int c, char *d, int *e, int *f, int g), (a, b, c, d, e, f, g)) \
    F(int, fluid_synth_system_reset, (fluid_synth_t *a), (a)) \
    F(int, fluid_synth_unset_program, (fluid_synth_t *a, int b), (a, b)) \
    F(int, fluid_synth_write_float, (fluid_synth_t *a, int b, void *c, int d, int e, void *f, int g, int h), (a, b, c, d, e, f, g, h)) \
    V(fluid_version, (int *a, int *b, int *c), (a, b, c)) \
    F(fluid_sfloader_t *, new_fluid_defsfloader, (fluid_settings_t *a), (a)) \
    F(fluid_settings_t *, new_fluid_settings, (void), ()) \
    F(fluid_synth_t *, new_fluid_synth, (fluid_settings_t *a), (a)) \
    F(cfluidsynth_glib_log_function, g_log_set_default_handler, (cfluidsynth_glib_log_function a, void *b), (a, b))

#define LAZY_LIBRARY_NAME fluidsynth
LAZY_LIBRARY(fluidsynth, "libfluidsynth.so.3", "libfluidsynth3", FUNCTIONS)

const char *cfluidsynth_open(void) { return lazy_library_open(&fluidsynth); }
