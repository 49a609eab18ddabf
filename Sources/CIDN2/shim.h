// libidn2: IDNA2008 conversion between Unicode and punycode host names.
#include <idn2.h>
