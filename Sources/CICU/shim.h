// ICU's spoof checker (Unicode TR39 confusable skeletons).
// ICU's own headers clash with the copy of ICU inside Foundation (both define UErrorCode), so only the
// version header is included and the three functions used are declared here with plain C types; ICU renames
// every function with its version suffix, which U_ICU_ENTRY_POINT_RENAME applies.
#include <stdint.h>
#include <unicode/uvernum.h>

struct CICU_SpoofChecker;
struct CICU_SpoofChecker *U_ICU_ENTRY_POINT_RENAME(uspoof_open)(int *status);
void U_ICU_ENTRY_POINT_RENAME(uspoof_close)(struct CICU_SpoofChecker *checker);
int32_t U_ICU_ENTRY_POINT_RENAME(uspoof_getSkeletonUTF8)(const struct CICU_SpoofChecker *checker, int32_t type,
    const char *id, int32_t length, char *dest, int32_t destCapacity, int *status);

static inline void *CICU_openSpoofChecker(void) {
    int status = 0;
    struct CICU_SpoofChecker *checker = U_ICU_ENTRY_POINT_RENAME(uspoof_open)(&status);
    return status > 0 ? 0 : checker;  // ICU: positive status codes are failures
}
static inline void CICU_closeSpoofChecker(void *checker) { U_ICU_ENTRY_POINT_RENAME(uspoof_close)((struct CICU_SpoofChecker *)checker); }
/// Writes the skeleton of a UTF-8 string; returns its length, or -1 on error (including a too-small buffer).
static inline int32_t CICU_skeleton(void *checker, const char *text, int32_t length, char *out, int32_t capacity) {
    int status = 0;
    int32_t n = U_ICU_ENTRY_POINT_RENAME(uspoof_getSkeletonUTF8)((struct CICU_SpoofChecker *)checker, 0, text, length, out, capacity, &status);
    return status > 0 ? -1 : n;
}
