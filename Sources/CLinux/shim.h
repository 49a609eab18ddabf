#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <fcntl.h>
#include <string.h>

// prctl is variadic, which Swift cannot call: these fix its arguments.
static inline int CLinux_setDumpable(int value) { return prctl(PR_SET_DUMPABLE, value, 0, 0, 0); }
static inline int CLinux_getDumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
// open is variadic (the mode argument), which Swift cannot call directly.
static inline int CLinux_openFile(const char *path, int flags, int mode) { return open(path, flags, mode); }
#include <sys/un.h>
#include <unistd.h>
#include <spawn.h>

// struct ucred needs _GNU_SOURCE, which the Glibc module was built without; this mirrors its layout.
struct CLinux_ucred { int pid; unsigned int uid; unsigned int gid; };
#ifndef SO_PEERCRED
#define SO_PEERCRED 17
#endif
/// The uid of a Unix socket's peer, or -1.
static inline long CLinux_peerUID(int fd) {
    struct CLinux_ucred cred;
    socklen_t length = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
    return (long)cred.uid;
}
/// Fills a sockaddr_un (sun_path is a fixed char array Swift sees as a tuple); returns 0, or -1 if too long.
static inline int CLinux_unixAddress(struct sockaddr_un *address, const char *path) {
    size_t n = strlen(path);
    if (n >= sizeof(address->sun_path)) return -1;
    memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path, path, n);
    return 0;
}
#ifndef POSIX_SPAWN_SETSID
#define POSIX_SPAWN_SETSID 0x80
#endif
// POSIX_SPAWN_SETSID is a macro Swift may not see; the agent starts in its own session and process group.
static inline short CLinux_spawnSetsidFlag(void) { return POSIX_SPAWN_SETSID; }
/// Closes every descriptor from `low` up in a spawned child (glibc 2.34+), so helpers that outlive their
/// starter (the agent, xclip's selection owner) never hold its pipes or sockets.
static inline int CLinux_spawnCloseFrom(posix_spawn_file_actions_t *actions, int low) {
    return posix_spawn_file_actions_addclosefrom_np(actions, low);
}
// pipe2 is declared only under _GNU_SOURCE.
extern int pipe2(int pipefd[2], int flags);
/// A pipe whose ends close on exec, created atomically, so a child spawned by another thread at the same
/// moment never inherits them.
static inline int CLinux_pipeCloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
#include <signal.h>
#ifndef POSIX_SPAWN_SETSIGMASK
#define POSIX_SPAWN_SETSIGMASK 0x08
#endif
#ifndef POSIX_SPAWN_SETSIGDEF
#define POSIX_SPAWN_SETSIGDEF 0x04
#endif
/// A spawned child starts with no signal blocked and every signal at its default action (plus `flags`):
/// posix_spawn otherwise passes on the spawning thread's mask, and a dispatch worker thread blocks SIGTERM,
/// which would leave a helper that can never be stopped.
static inline int CLinux_spawnCleanSignals(posix_spawnattr_t *attributes, short flags) {
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(attributes, &none);
    posix_spawnattr_setsigdefault(attributes, &all);
    return posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}
#include <malloc.h>
// malloc.h is not part of the Glibc module Swift imports: give freed heap back to the system after a lock.
static inline int CLinux_releaseFreeMemory(void) { return malloc_trim(0); }
