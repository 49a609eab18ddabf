// Writes a one-page PDF (the Emergency Kit) with cairo, loaded with dlopen on first use. Swift lays the
// page out; this draws the texts and boxes it is given, so no cairo type reaches Swift.
#ifndef CKITSUPPORT_H
#define CKITSUPPORT_H

/// 1 when libcairo could be loaded.
int CKit_available(void);

typedef struct CKit_Text {
    double x, y;       // baseline start, in points from the top left
    double size;       // font size in points
    int bold;
    int monospace;
    const char *text;  // UTF-8
} CKit_Text;

typedef struct CKit_Box {
    double x, y, width, height;  // a rectangle's outline, or a line when height is 0
} CKit_Box;

/// Writes the page to `path` (width × height points). Returns 0, or -1 with a reason in `error` (256 bytes).
int CKit_writePDF(const char *path, double width, double height, const CKit_Text *texts, int textCount, const CKit_Box *boxes,
                  int boxCount, char *error);

/// The width in points `text` takes in the given font (for centring and for keeping the Secret Key on one line).
double CKit_textWidth(const char *text, double size, int bold, int monospace);

/// One QR code: `modules` × `modules` bytes (1 dark), drawn as a square of `size` points at (x, y), top left.
typedef struct CKit_QR {
    double x, y, size;
    int modules;
    const unsigned char *data;
} CKit_QR;

typedef struct CKit_Page {
    const CKit_Text *texts;
    int textCount;
    const CKit_QR *codes;
    int codeCount;
} CKit_Page;

/// Writes a PDF of `pageCount` pages of texts and QR codes (a PDF backup). Returns 0, or -1 with a reason.
int CKit_writePages(const char *path, double width, double height, const CKit_Page *pages, int pageCount, char *error);

#endif
