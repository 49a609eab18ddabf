// libxml2's streaming reader, for reading other apps' XML (KeePass files). Loaded with dlopen on first use
// (CXMLSupport.c), so a command that reads no XML never loads libxml2 and the ICU it links (about 1 ms of every
// process start when linked). Safe to call from several threads.
#ifndef CXMLSUPPORT_H
#define CXMLSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// What the parser reports, in document order.
typedef struct {
    /// An element starts (its attributes follow, each through `attribute`).
    void (*start)(void *context, const char *name);
    /// An attribute of the element that started last.
    void (*attribute)(void *context, const char *name, const char *value);
    /// The element that started last ends.
    void (*end)(void *context);
    /// Text (or CDATA) inside the current element, entities already replaced.
    void (*text)(void *context, const char *text);
} CXML_Callbacks;

/// 1 when libxml2.so.2 could be loaded with every function used here.
int CXML_available(void);

/// Parses `length` bytes of XML. No network access, no external entity, no DTD loaded; a document that
/// has a document type declaration (`<!DOCTYPE`), declares its own entities, nests deeper than `maxDepth` or is malformed is refused. Returns 0 on success;
/// -1 when libxml2 is missing; -2 when the document is malformed (`*line` is the line, when known); -3 when it
/// nests too deep; -4 when it uses an entity of its own; -5 when it has a document type declaration.
int CXML_parse(const uint8_t *data, size_t length, int maxDepth, const CXML_Callbacks *callbacks, void *context, int *line);

#endif
