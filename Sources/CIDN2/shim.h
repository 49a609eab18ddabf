// libidn2's header, for CIDN2Support, which loads libidn2 with dlopen; Swift imports CIDN2Support, not this.
#include <idn2.h>
