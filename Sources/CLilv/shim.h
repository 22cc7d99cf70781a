// lilv (Debian's liblilv-dev) and the LV2 extensions Pianola's host offers.
#include <lilv/lilv.h>
#include <lv2/core/lv2.h>
#include <lv2/urid/urid.h>
#include <lv2/options/options.h>
#include <lv2/atom/atom.h>
