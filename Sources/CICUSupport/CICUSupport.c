// The spoof checker's three calls, with ICU's status codes turned into NULL or -1.
#include "CICUSupport.h"

#include <unicode/uspoof.h>

void *CICU_openSpoofChecker(void) {
    UErrorCode status = U_ZERO_ERROR;
    USpoofChecker *checker = uspoof_open(&status);
    return U_FAILURE(status) ? 0 : checker;
}

void CICU_closeSpoofChecker(void *checker) { uspoof_close((USpoofChecker *)checker); }

int32_t CICU_skeleton(void *checker, const char *text, int32_t length, char *out, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    // The type argument is unused by ICU and must be 0.
    int32_t n = uspoof_getSkeletonUTF8((const USpoofChecker *)checker, 0, text, length, out, capacity, &status);
    return U_FAILURE(status) ? -1 : n;
}
