/* libpipewire-0.3 for Swift: its headers, with the library itself opened on first use
   (lazy_library.h), and what Swift cannot call in them as functions. */
#include <pipewire/pipewire.h>
#include <pipewire/extensions/metadata.h>
#include <stddef.h>

/* Opens libpipewire-0.3.so.0, once: NULL, or why it cannot be, in one line. Any thread. */
const char *cpipewire_open(void);

/* The one format Pianola plays (float stereo at `rate`), built with SPA's pod builder into
   `buffer`, which must outlive the returned pod. */
const struct spa_pod *shim_pw_stereo_float_format(uint8_t *buffer, uint32_t size, uint32_t rate);

/* The interface methods below are variadic macros in PipeWire's headers. */
int shim_pw_core_add_listener(struct pw_core *core, struct spa_hook *hook, const struct pw_core_events *events, void *data);
int shim_pw_core_sync(struct pw_core *core, int seq);
int shim_pw_registry_add_listener(struct pw_registry *registry, struct spa_hook *hook, const struct pw_registry_events *events, void *data);
int shim_pw_metadata_add_listener(struct pw_metadata *metadata, struct spa_hook *hook, const struct pw_metadata_events *events, void *data);
