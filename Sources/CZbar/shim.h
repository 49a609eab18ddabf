// libzbar's header, for CZbarSupport.c, which loads libzbar with dlopen; Swift imports CZbarSupport, not this.
#include <zbar.h>
