// Pulls in the system header for CArgon2.
#include <argon2.h>
