// libcurl's header, for CCurlSupport.c, which loads libcurl with dlopen; Swift imports CCurlSupport, not this.
#include <curl/curl.h>
