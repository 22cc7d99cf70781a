#include <sndfile.h>

/* The first loop of a file's instrument chunk (WAV smpl, AIFF), which Swift cannot reach:
   SF_INSTRUMENT's loops are an array of an anonymous struct. Returns 1 and the frame range
   when there is a forward, backward or alternating loop, else 0. */
static inline int pianola_sf_first_loop(SNDFILE *file, unsigned *start, unsigned *end) {
    SF_INSTRUMENT instrument;
    if (sf_command(file, SFC_GET_INSTRUMENT, &instrument, sizeof instrument) != SF_TRUE) return 0;
    if (instrument.loop_count < 1 || instrument.loops[0].mode == SF_LOOP_NONE) return 0;
    *start = instrument.loops[0].start;
    *end = instrument.loops[0].end;
    return 1;
}
