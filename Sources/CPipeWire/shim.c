#include "shim.h"
#include <spa/param/audio/format-utils.h>

const struct spa_pod *shim_pw_stereo_float_format(uint8_t *buffer, uint32_t size, uint32_t rate) {
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, size);
    struct spa_audio_info_raw info = SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .rate = rate, .channels = 2);
    info.position[0] = SPA_AUDIO_CHANNEL_FL;
    info.position[1] = SPA_AUDIO_CHANNEL_FR;
    return spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info);
}

int shim_pw_core_add_listener(struct pw_core *core, struct spa_hook *hook, const struct pw_core_events *events, void *data) {
    return pw_core_add_listener(core, hook, events, data);
}

int shim_pw_core_sync(struct pw_core *core, int seq) {
    return pw_core_sync(core, PW_ID_CORE, seq);
}

int shim_pw_registry_add_listener(struct pw_registry *registry, struct spa_hook *hook, const struct pw_registry_events *events, void *data) {
    return pw_registry_add_listener(registry, hook, events, data);
}

int shim_pw_metadata_add_listener(struct pw_metadata *metadata, struct spa_hook *hook, const struct pw_metadata_events *events, void *data) {
    return pw_metadata_add_listener(metadata, hook, events, data);
}
