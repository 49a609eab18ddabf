// ICU's version header only: ICU's API headers clash with the copy of ICU inside Foundation (both define
// UErrorCode), so CICUSupport.c includes <unicode/uspoof.h> itself; this module supplies the pkg-config
// flags (icu-i18n) and libraries, and Swift imports CICUSupport, not this.
#include <unicode/uvernum.h>
