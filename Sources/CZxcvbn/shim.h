// Pulls in the system header for CZxcvbn.
#include <zxcvbn.h>
