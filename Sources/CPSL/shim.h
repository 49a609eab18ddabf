// libpsl: registrable domains (eTLD+1) from the Public Suffix List.
#include <libpsl.h>
