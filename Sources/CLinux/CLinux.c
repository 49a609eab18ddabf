// The Linux calls of CLinux.h. _GNU_SOURCE declares struct ucred, pipe2, POSIX_SPAWN_SETSID and
// posix_spawn_file_actions_addclosefrom_np, which the Glibc module Swift uses was built without.
#define _GNU_SOURCE
#include <malloc.h>
#include "CLinux.h"

int CLinux_setDumpable(int value) { return prctl(PR_SET_DUMPABLE, value, 0, 0, 0); }

int CLinux_getDumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

int CLinux_openFile(const char *path, int flags, int mode) { return open(path, flags, mode); }

long CLinux_peerUID(int fd) {
    struct ucred cred;
    socklen_t length = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
    return (long)cred.uid;
}

int CLinux_unixAddress(struct sockaddr_un *address, const char *path) {
    size_t n = strlen(path);
    if (n >= sizeof(address->sun_path)) return -1;
    memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path, path, n);
    return 0;
}

short CLinux_spawnSetsidFlag(void) { return POSIX_SPAWN_SETSID; }

int CLinux_spawnCloseFrom(posix_spawn_file_actions_t *actions, int low) { return posix_spawn_file_actions_addclosefrom_np(actions, low); }

int CLinux_pipeCloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int CLinux_spawnCleanSignals(posix_spawnattr_t *attributes, short flags) {
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(attributes, &none);
    posix_spawnattr_setsigdefault(attributes, &all);
    return posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

int CLinux_releaseFreeMemory(void) { return malloc_trim(0); }
