// Loads libxml2 with dlopen once and walks a document with its streaming reader (xmlTextReader), reporting
// elements, attributes and text to Swift. The prototypes are libxml2's own (xmlreader.h), declared here with
// opaque pointers so nothing links the library.
#define _GNU_SOURCE  // memmem
#include "CXMLSupport.h"

#include <dlfcn.h>
#include <string.h>
#include <pthread.h>

typedef struct _xmlTextReader *Reader;
typedef void (*ErrorHandler)(void *arg, const char *msg, int severity, void *locator);

// libxml2's parser options (xmlParserOption) and reader node types (xmlReaderTypes).
enum { XML_PARSE_NONET = 1 << 11, XML_PARSE_NOCDATA = 1 << 14 };
enum { TYPE_ELEMENT = 1, TYPE_TEXT = 3, TYPE_CDATA = 4, TYPE_ENTITY_REFERENCE = 5, TYPE_DOCUMENT_TYPE = 10, TYPE_WHITESPACE = 13, TYPE_SIGNIFICANT_WHITESPACE = 14, TYPE_END_ELEMENT = 15 };

static struct {
    Reader (*readerForMemory)(const char *buffer, int size, const char *url, const char *encoding, int options);
    int (*read)(Reader);
    int (*nodeType)(Reader);
    const unsigned char *(*constName)(Reader);
    const unsigned char *(*constValue)(Reader);
    int (*isEmptyElement)(Reader);
    int (*moveToNextAttribute)(Reader);
    int (*moveToElement)(Reader);
    int (*depth)(Reader);
    void (*setErrorHandler)(Reader, ErrorHandler, void *);
    int (*locatorLineNumber)(void *);
    void (*freeReader)(Reader);
    int loaded;
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;

#define LOAD(field, name) \
    if (!(*(void **)&api.field = dlsym(h, name))) { dlclose(h); return; }

static void loadOnce(void) {
    void *h = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    LOAD(readerForMemory, "xmlReaderForMemory");
    LOAD(read, "xmlTextReaderRead");
    LOAD(nodeType, "xmlTextReaderNodeType");
    LOAD(constName, "xmlTextReaderConstName");
    LOAD(constValue, "xmlTextReaderConstValue");
    LOAD(isEmptyElement, "xmlTextReaderIsEmptyElement");
    LOAD(moveToNextAttribute, "xmlTextReaderMoveToNextAttribute");
    LOAD(moveToElement, "xmlTextReaderMoveToElement");
    LOAD(depth, "xmlTextReaderDepth");
    LOAD(setErrorHandler, "xmlTextReaderSetErrorHandler");
    LOAD(locatorLineNumber, "xmlTextReaderLocatorLineNumber");
    LOAD(freeReader, "xmlFreeTextReader");
    api.loaded = 1;
}

int CXML_available(void) {
    pthread_once(&once, loadOnce);
    return api.loaded;
}

// Errors are kept (the first line), never printed: libxml2 would write them to standard error.
static void onError(void *arg, const char *msg, int severity, void *locator) {
    (void)msg;
    (void)severity;
    int *line = arg;
    if (*line == 0 && locator) *line = api.locatorLineNumber(locator);
}

int CXML_parse(const uint8_t *data, size_t length, int maxDepth, const CXML_Callbacks *callbacks, void *context, int *line) {
    *line = 0;
    if (!CXML_available()) return -1;
    if (length > 0x7fffffff) return -2;
    // A document type declaration is refused before libxml2 sees the document: KeePass never writes one, and
    // its internal subset is where entities are declared that expand inside attribute values (a 1 KB file
    // once grew to 2 GB that way). The bytes are read as UTF-8 (the encoding is forced below), so the
    // declaration can only appear as these ASCII bytes; one inside a comment or CDATA is refused too.
    if (memmem(data, length, "<!DOCTYPE", 9) != NULL) return -5;
    // No network, no entity substitution (a document's own entities come back as references and are refused),
    // no DTD loading, and libxml2's default limits on sizes (XML_PARSE_HUGE is not set).
    Reader reader = api.readerForMemory((const char *)data, (int)length, NULL, "UTF-8", XML_PARSE_NONET | XML_PARSE_NOCDATA);
    if (!reader) return -2;
    api.setErrorHandler(reader, onError, line);
    int result = 0;
    int status;
    while ((status = api.read(reader)) == 1) {
        int type = api.nodeType(reader);
        if (type == TYPE_ELEMENT) {
            if (api.depth(reader) >= maxDepth) { result = -3; break; }
            const char *name = (const char *)api.constName(reader);
            int empty = api.isEmptyElement(reader);
            callbacks->start(context, name ? name : "");
            // Each attribute is handed over before the next move, which may reuse the reader's value buffer.
            while (api.moveToNextAttribute(reader) == 1) {
                const char *key = (const char *)api.constName(reader);
                const char *value = (const char *)api.constValue(reader);
                callbacks->attribute(context, key ? key : "", value ? value : "");
            }
            api.moveToElement(reader);
            if (empty) callbacks->end(context);
        } else if (type == TYPE_END_ELEMENT) {
            callbacks->end(context);
        } else if (type == TYPE_TEXT || type == TYPE_CDATA || type == TYPE_SIGNIFICANT_WHITESPACE || type == TYPE_WHITESPACE) {
            const unsigned char *value = api.constValue(reader);
            if (value) callbacks->text(context, (const char *)value);
        } else if (type == TYPE_ENTITY_REFERENCE) {
            result = -4;
            break;
        } else if (type == TYPE_DOCUMENT_TYPE) {
            result = -5;
            break;
        }
    }
    if (result == 0 && status != 0) result = -2;
    api.freeReader(reader);
    return result;
}
