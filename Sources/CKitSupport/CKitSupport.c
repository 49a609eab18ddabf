// The Emergency Kit's PDF (see CKitSupport.h): cairo loaded with dlopen once, then a page of texts and boxes.
#include "CKitSupport.h"

#include <cairo/cairo-pdf.h>
#include <cairo/cairo.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

struct CKit_API {
    cairo_surface_t *(*pdf_surface_create)(const char *, double, double);
    cairo_surface_t *(*image_surface_create)(cairo_format_t, int, int);
    cairo_t *(*create)(cairo_surface_t *);
    void (*select_font_face)(cairo_t *, const char *, cairo_font_slant_t, cairo_font_weight_t);
    void (*set_font_size)(cairo_t *, double);
    void (*move_to)(cairo_t *, double, double);
    void (*show_text)(cairo_t *, const char *);
    void (*text_extents)(cairo_t *, const char *, cairo_text_extents_t *);
    void (*set_source_rgb)(cairo_t *, double, double, double);
    void (*rectangle)(cairo_t *, double, double, double, double);
    void (*line_to)(cairo_t *, double, double);
    void (*set_line_width)(cairo_t *, double);
    void (*stroke)(cairo_t *);
    void (*fill)(cairo_t *);
    void (*show_page)(cairo_t *);
    cairo_status_t (*status)(cairo_t *);
    void (*destroy)(cairo_t *);
    void (*surface_finish)(cairo_surface_t *);
    cairo_status_t (*surface_status)(cairo_surface_t *);
    void (*surface_destroy)(cairo_surface_t *);
    const char *(*status_to_string)(cairo_status_t);
    void (*save)(cairo_t *);
    void (*restore)(cairo_t *);
    int loaded;
};

static struct CKit_API api;

#define CKIT_LOAD(field, name) api.field = (__typeof__(api.field))dlsym(h, name); if (!api.field) return;

static void CKit_loadOnce(void) {
    void *h = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    CKIT_LOAD(pdf_surface_create, "cairo_pdf_surface_create")
    CKIT_LOAD(image_surface_create, "cairo_image_surface_create")
    CKIT_LOAD(create, "cairo_create")
    CKIT_LOAD(select_font_face, "cairo_select_font_face")
    CKIT_LOAD(set_font_size, "cairo_set_font_size")
    CKIT_LOAD(move_to, "cairo_move_to")
    CKIT_LOAD(show_text, "cairo_show_text")
    CKIT_LOAD(text_extents, "cairo_text_extents")
    CKIT_LOAD(set_source_rgb, "cairo_set_source_rgb")
    CKIT_LOAD(rectangle, "cairo_rectangle")
    CKIT_LOAD(line_to, "cairo_line_to")
    CKIT_LOAD(set_line_width, "cairo_set_line_width")
    CKIT_LOAD(stroke, "cairo_stroke")
    CKIT_LOAD(fill, "cairo_fill")
    CKIT_LOAD(show_page, "cairo_show_page")
    CKIT_LOAD(status, "cairo_status")
    CKIT_LOAD(destroy, "cairo_destroy")
    CKIT_LOAD(surface_finish, "cairo_surface_finish")
    CKIT_LOAD(surface_status, "cairo_surface_status")
    CKIT_LOAD(surface_destroy, "cairo_surface_destroy")
    CKIT_LOAD(status_to_string, "cairo_status_to_string")
    CKIT_LOAD(save, "cairo_save")
    CKIT_LOAD(restore, "cairo_restore")
    api.loaded = 1;
}

int CKit_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CKit_loadOnce);
    return api.loaded;
}

static void CKit_font(cairo_t *cr, double size, int bold, int monospace) {
    api.select_font_face(cr, monospace ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    api.set_font_size(cr, size);
}

double CKit_textWidth(const char *text, double size, int bold, int monospace) {
    if (!CKit_available()) return 0;
    cairo_surface_t *surface = api.image_surface_create(CAIRO_FORMAT_A8, 1, 1);
    cairo_t *cr = api.create(surface);
    CKit_font(cr, size, bold, monospace);
    cairo_text_extents_t extents;
    api.text_extents(cr, text, &extents);
    api.destroy(cr);
    api.surface_destroy(surface);
    return extents.x_advance;
}

// A PDF surface at `path` and its context, or NULL with a reason in `error` (256 bytes).
static cairo_t *CKit_begin(const char *path, double width, double height, cairo_surface_t **surface, char *error) {
    error[0] = 0;
    if (!CKit_available()) {
        snprintf(error, 256, "libcairo.so.2 could not be loaded (install libcairo2)");
        return NULL;
    }
    *surface = api.pdf_surface_create(path, width, height);
    if (api.surface_status(*surface) != CAIRO_STATUS_SUCCESS) {
        snprintf(error, 256, "%s", api.status_to_string(api.surface_status(*surface)));
        api.surface_destroy(*surface);
        return NULL;
    }
    return api.create(*surface);
}

// Finishes the file: 0, or -1 with cairo's reason.
static int CKit_end(cairo_t *cr, cairo_surface_t *surface, char *error) {
    cairo_status_t status = api.status(cr);
    api.destroy(cr);
    api.surface_finish(surface);
    if (status == CAIRO_STATUS_SUCCESS) status = api.surface_status(surface);
    api.surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS) {
        snprintf(error, 256, "%s", api.status_to_string(status));
        return -1;
    }
    return 0;
}

int CKit_writePDF(const char *path, double width, double height, const CKit_Text *texts, int textCount, const CKit_Box *boxes,
                  int boxCount, char *error) {
    cairo_surface_t *surface;
    cairo_t *cr = CKit_begin(path, width, height, &surface, error);
    if (!cr) return -1;
    api.set_source_rgb(cr, 0, 0, 0);
    api.set_line_width(cr, 1);
    for (int i = 0; i < boxCount; i++) {
        if (boxes[i].height == 0) {
            api.move_to(cr, boxes[i].x, boxes[i].y);
            api.line_to(cr, boxes[i].x + boxes[i].width, boxes[i].y);
        } else {
            api.rectangle(cr, boxes[i].x, boxes[i].y, boxes[i].width, boxes[i].height);
        }
        api.stroke(cr);
    }
    for (int i = 0; i < textCount; i++) {
        CKit_font(cr, texts[i].size, texts[i].bold, texts[i].monospace);
        api.move_to(cr, texts[i].x, texts[i].y);
        api.show_text(cr, texts[i].text);
    }
    api.show_page(cr);
    return CKit_end(cr, surface, error);
}

// One QR code as filled squares (each row's runs of dark modules one rectangle), inside its four-module quiet
// zone. Drawn as vectors, a module's edges stay sharp at whatever resolution the page is printed, scanned or
// rendered (an image scaled up is smoothed by some renderers: poppler blurs enlargements under four times).
static void CKit_drawQR(cairo_t *cr, const CKit_QR *code) {
    int n = code->modules, side = n + 8;
    double module = code->size / side;
    api.save(cr);
    api.set_source_rgb(cr, 0, 0, 0);
    for (int y = 0; y < n; y++) {
        int x = 0;
        while (x < n) {
            if (!code->data[y * n + x]) { x++; continue; }
            int run = x;
            while (run < n && code->data[y * n + run]) run++;
            api.rectangle(cr, code->x + (x + 4) * module, code->y + (y + 4) * module, (run - x) * module, module);
            x = run;
        }
    }
    api.fill(cr);
    api.restore(cr);
}

int CKit_writePages(const char *path, double width, double height, const CKit_Page *pages, int pageCount, char *error) {
    cairo_surface_t *surface;
    cairo_t *cr = CKit_begin(path, width, height, &surface, error);
    if (!cr) return -1;
    for (int p = 0; p < pageCount; p++) {
        const CKit_Page *page = &pages[p];
        for (int i = 0; i < page->codeCount; i++) CKit_drawQR(cr, &page->codes[i]);
        api.set_source_rgb(cr, 0, 0, 0);
        for (int i = 0; i < page->textCount; i++) {
            CKit_font(cr, page->texts[i].size, page->texts[i].bold, page->texts[i].monospace);
            api.move_to(cr, page->texts[i].x, page->texts[i].y);
            api.show_text(cr, page->texts[i].text);
        }
        api.show_page(cr);
    }
    return CKit_end(cr, surface, error);
}
