#include "shim.h"
#include "lazy_library.h"

/* Every lilv function Pianola calls, as lazy_library.h defines them. */
#define FUNCTIONS(F, V, P) \
    V(lilv_instance_free, (LilvInstance *a), (a)) \
    F(LilvNode *, lilv_new_uri, (LilvWorld *a, const char *b), (a, b)) \
    F(const char *, lilv_node_as_string, (const LilvNode *a), (a)) \
    F(float, lilv_node_as_float, (const LilvNode *a), (a)) \
    V(lilv_node_free, (LilvNode *a), (a)) \
    F(LilvIter *, lilv_nodes_begin, (const LilvNodes *a), (a)) \
    F(bool, lilv_nodes_contains, (const LilvNodes *a, const LilvNode *b), (a, b)) \
    V(lilv_nodes_free, (LilvNodes *a), (a)) \
    F(const LilvNode *, lilv_nodes_get, (const LilvNodes *a, LilvIter *b), (a, b)) \
    F(LilvNode *, lilv_nodes_get_first, (const LilvNodes *a), (a)) \
    F(bool, lilv_nodes_is_end, (const LilvNodes *a, LilvIter *b), (a, b)) \
    F(LilvIter *, lilv_nodes_next, (const LilvNodes *a, LilvIter *b), (a, b)) \
    F(const LilvNode *, lilv_plugin_class_get_label, (const LilvPluginClass *a), (a)) \
    F(const LilvPluginClass *, lilv_plugin_get_class, (const LilvPlugin *a), (a)) \
    F(LilvNode *, lilv_plugin_get_name, (const LilvPlugin *a), (a)) \
    F(uint32_t, lilv_plugin_get_num_ports, (const LilvPlugin *a), (a)) \
    F(LilvNodes *, lilv_plugin_get_optional_features, (const LilvPlugin *a), (a)) \
    F(bool, lilv_plugin_has_latency, (const LilvPlugin *a), (a)) \
    F(uint32_t, lilv_plugin_get_latency_port_index, (const LilvPlugin *a), (a)) \
    F(const LilvPort *, lilv_plugin_get_port_by_index, (const LilvPlugin *a, uint32_t b), (a, b)) \
    V(lilv_plugin_get_port_ranges_float, (const LilvPlugin *a, float *b, float *c, float *d), (a, b, c, d)) \
    F(LilvNodes *, lilv_plugin_get_related, (const LilvPlugin *a, const LilvNode *b), (a, b)) \
    F(LilvNodes *, lilv_plugin_get_required_features, (const LilvPlugin *a), (a)) \
    F(const LilvNode *, lilv_plugin_get_uri, (const LilvPlugin *a), (a)) \
    F(const LilvNode *, lilv_plugin_get_bundle_uri, (const LilvPlugin *a), (a)) \
    F(LilvInstance *, lilv_plugin_instantiate, (const LilvPlugin *a, double b, const LV2_Feature *const *c), (a, b, c)) \
    F(LilvIter *, lilv_plugins_begin, (const LilvPlugins *a), (a)) \
    F(const LilvPlugin *, lilv_plugins_get, (const LilvPlugins *a, LilvIter *b), (a, b)) \
    F(const LilvPlugin *, lilv_plugins_get_by_uri, (const LilvPlugins *a, const LilvNode *b), (a, b)) \
    F(bool, lilv_plugins_is_end, (const LilvPlugins *a, LilvIter *b), (a, b)) \
    F(LilvIter *, lilv_plugins_next, (const LilvPlugins *a, LilvIter *b), (a, b)) \
    F(LilvNode *, lilv_port_get_name, (const LilvPlugin *a, const LilvPort *b), (a, b)) \
    F(const LilvNode *, lilv_port_get_symbol, (const LilvPlugin *a, const LilvPort *b), (a, b)) \
    F(LilvNode *, lilv_port_get, (const LilvPlugin *a, const LilvPort *b, const LilvNode *c), (a, b, c)) \
    F(LilvScalePoints *, lilv_port_get_scale_points, (const LilvPlugin *a, const LilvPort *b), (a, b)) \
    V(lilv_scale_points_free, (LilvScalePoints *a), (a)) \
    F(LilvIter *, lilv_scale_points_begin, (const LilvScalePoints *a), (a)) \
    F(const LilvScalePoint *, lilv_scale_points_get, (const LilvScalePoints *a, LilvIter *b), (a, b)) \
    F(LilvIter *, lilv_scale_points_next, (const LilvScalePoints *a, LilvIter *b), (a, b)) \
    F(bool, lilv_scale_points_is_end, (const LilvScalePoints *a, LilvIter *b), (a, b)) \
    F(const LilvNode *, lilv_scale_point_get_label, (const LilvScalePoint *a), (a)) \
    F(const LilvNode *, lilv_scale_point_get_value, (const LilvScalePoint *a), (a)) \
    F(bool, lilv_port_has_property, (const LilvPlugin *a, const LilvPort *b, const LilvNode *c), (a, b, c)) \
    F(bool, lilv_port_is_a, (const LilvPlugin *a, const LilvPort *b, const LilvNode *c), (a, b, c)) \
    F(bool, lilv_port_supports_event, (const LilvPlugin *a, const LilvPort *b, const LilvNode *c), (a, b, c)) \
    F(LilvNodes *, lilv_world_find_nodes, (LilvWorld *a, const LilvNode *b, const LilvNode *c, const LilvNode *d), (a, b, c, d)) \
    F(const LilvPlugins *, lilv_world_get_all_plugins, (const LilvWorld *a), (a)) \
    V(lilv_world_load_all, (LilvWorld *a), (a)) \
    F(int, lilv_world_load_resource, (LilvWorld *a, const LilvNode *b), (a, b)) \
    F(LilvWorld *, lilv_world_new, (void), ()) \
    F(LilvState *, lilv_state_new_from_world, (LilvWorld *a, LV2_URID_Map *b, const LilvNode *c), (a, b, c)) \
    V(lilv_state_emit_port_values, (const LilvState *a, LilvSetPortValueFunc b, void *c), (a, b, c)) \
    V(lilv_state_free, (LilvState *a), (a)) \
    V(lilv_state_restore, (const LilvState *a, LilvInstance *b, LilvSetPortValueFunc c, void *d, uint32_t e, const LV2_Feature *const *f), (a, b, c, d, e, f))

#define LAZY_LIBRARY_NAME lilv
LAZY_LIBRARY(lilv, "liblilv-0.so.0", "liblilv-0-0", FUNCTIONS)

const char *clilv_open(void) { return lazy_library_open(&lilv); }
