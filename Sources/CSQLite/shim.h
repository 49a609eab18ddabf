// Pulls in the system header for CSQLite.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }
