// Pulls in the system header for CZlib.
#include <zlib.h>
