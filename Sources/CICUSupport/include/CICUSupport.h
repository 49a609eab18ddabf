// ICU's spoof checker (Unicode TR39 confusable skeletons), behind plain C types: ICU's own headers clash with
// the copy of ICU inside Foundation (both define UErrorCode), so Swift never sees them; CICUSupport.c does.
#ifndef CICUSUPPORT_H
#define CICUSUPPORT_H

#include <stdint.h>

/// A new spoof checker, or NULL if ICU cannot make one.
void *CICU_openSpoofChecker(void);
void CICU_closeSpoofChecker(void *checker);
/// Writes the skeleton of a UTF-8 string; returns its length, or -1 on error (including a too-small buffer).
int32_t CICU_skeleton(void *checker, const char *text, int32_t length, char *out, int32_t capacity);

#endif
