#include "shim.h"
#include "lazy_library.h"

/* Every cairo function Pianola (and its tests) call, as lazy_library.h defines them. */
#define FUNCTIONS(F, V, P) \
    F(cairo_t *, cairo_create, (cairo_surface_t *a), (a)) \
    V(cairo_destroy, (cairo_t *a), (a)) \
    V(cairo_fill, (cairo_t *a), (a)) \
    F(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t a, int b, int c), (a, b, c)) \
    F(cairo_surface_t *, cairo_image_surface_create_from_png, (const char *a), (a)) \
    F(unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *a), (a)) \
    F(int, cairo_image_surface_get_stride, (cairo_surface_t *a), (a)) \
    V(cairo_line_to, (cairo_t *a, double b, double c), (a, b, c)) \
    V(cairo_move_to, (cairo_t *a, double b, double c), (a, b, c)) \
    V(cairo_paint, (cairo_t *a), (a)) \
    F(cairo_surface_t *, cairo_pdf_surface_create, (const char *a, double b, double c), (a, b, c)) \
    V(cairo_rectangle, (cairo_t *a, double b, double c, double d, double e), (a, b, c, d, e)) \
    V(cairo_select_font_face, (cairo_t *a, const char *b, cairo_font_slant_t c, cairo_font_weight_t d), (a, b, c, d)) \
    V(cairo_set_font_size, (cairo_t *a, double b), (a, b)) \
    V(cairo_set_line_width, (cairo_t *a, double b), (a, b)) \
    V(cairo_set_source_rgba, (cairo_t *a, double b, double c, double d, double e), (a, b, c, d, e)) \
    V(cairo_show_text, (cairo_t *a, const char *b), (a, b)) \
    F(const char *, cairo_status_to_string, (cairo_status_t a), (a)) \
    V(cairo_stroke, (cairo_t *a), (a)) \
    V(cairo_surface_destroy, (cairo_surface_t *a), (a)) \
    V(cairo_surface_finish, (cairo_surface_t *a), (a)) \
    V(cairo_surface_flush, (cairo_surface_t *a), (a)) \
    F(cairo_status_t, cairo_surface_status, (cairo_surface_t *a), (a)) \
    F(cairo_status_t, cairo_surface_write_to_png, (cairo_surface_t *a, const char *b), (a, b)) \
    F(cairo_surface_t *, cairo_svg_surface_create, (const char *a, double b, double c), (a, b, c)) \
    V(cairo_text_extents, (cairo_t *a, const char *b, cairo_text_extents_t *c), (a, b, c))

#define LAZY_LIBRARY_NAME cairo
LAZY_LIBRARY(cairo, "libcairo.so.2", "libcairo2", FUNCTIONS)

const char *ccairo_open(void) { return lazy_library_open(&cairo); }
