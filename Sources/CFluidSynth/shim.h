#include <fluidsynth/fluidsynth.h>
