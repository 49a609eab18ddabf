// libqrencode's header, for CQRSupport.c, which loads libqrencode with dlopen on first use; Swift imports
// CQRSupport, not this.
#include <qrencode.h>
