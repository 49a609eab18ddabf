// Pulls in the system header for CSodium.
#include <sodium.h>
