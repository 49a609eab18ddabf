#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <fcntl.h>

// prctl is variadic, which Swift cannot call: these fix its arguments.
static inline int CLinux_setDumpable(int value) { return prctl(PR_SET_DUMPABLE, value, 0, 0, 0); }
static inline int CLinux_getDumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
// open is variadic (the mode argument), which Swift cannot call directly.
static inline int CLinux_openFile(const char *path, int flags, int mode) { return open(path, flags, mode); }
