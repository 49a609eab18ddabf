// ICU's version header only: ICU's API headers clash with the copy of ICU inside Foundation (both define
// UErrorCode), so CICUSupport.c includes <unicode/uspoof.h> itself and loads libicui18n with dlopen (its soname
// and symbol suffix come from this version); Swift imports CICUSupport, not this.
#include <unicode/uvernum.h>
