// ICU's spoof checker (Unicode TR39 confusable skeletons), behind plain C types: ICU's own headers clash with
// the copy of ICU inside Foundation (both define UErrorCode), so Swift never sees them; CICUSupport.c does.
// libicui18n (with libicuuc and the 30 MB libicudata) is loaded with dlopen on first use, not at every start
// of the CLI.
#ifndef CICUSUPPORT_H
#define CICUSUPPORT_H

#include <stdint.h>

/// 1 when libicui18n could be loaded. The functions below load it on first use, from any thread.
int CICU_available(void);
/// A new spoof checker, or NULL if ICU cannot be loaded or cannot make one.
void *CICU_openSpoofChecker(void);
void CICU_closeSpoofChecker(void *checker);
/// Writes the skeleton of a UTF-8 string; returns its length, or -1 on error (including a too-small buffer).
int32_t CICU_skeleton(void *checker, const char *text, int32_t length, char *out, int32_t capacity);

#endif
