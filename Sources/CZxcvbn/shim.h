// libzxcvbn's header, for CZxcvbnSupport, which loads libzxcvbn with dlopen; Swift imports CZxcvbnSupport, not this.
#include <zxcvbn.h>
