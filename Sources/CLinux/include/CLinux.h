// Linux calls Swift cannot make directly (variadic functions, macros, declarations that need _GNU_SOURCE,
// fixed-size arrays Swift sees as tuples), defined in CLinux.c. The one C module for Linux system calls:
// every Swift module that needs one of them imports CLinux.
#ifndef CLINUX_H
#define CLINUX_H

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <sys/un.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

// prctl is variadic, which Swift cannot call: these fix its arguments.
int CLinux_setDumpable(int value);
int CLinux_getDumpable(void);
// open is variadic (the mode argument), which Swift cannot call directly.
int CLinux_openFile(const char *path, int flags, int mode);
/// The uid of a Unix socket's peer (SO_PEERCRED), or -1.
long CLinux_peerUID(int fd);
/// Fills a sockaddr_un (sun_path is a fixed char array Swift sees as a tuple); returns 0, or -1 if too long.
int CLinux_unixAddress(struct sockaddr_un *address, const char *path);
// POSIX_SPAWN_SETSID is a macro Swift may not see; the agent starts in its own session and process group.
short CLinux_spawnSetsidFlag(void);
/// Closes every descriptor from `low` up in a spawned child (glibc 2.34+), so helpers that outlive their
/// starter (the agent, xclip's selection owner) never hold its pipes or sockets.
int CLinux_spawnCloseFrom(posix_spawn_file_actions_t *actions, int low);
/// A pipe whose ends close on exec, created atomically, so a child spawned by another thread at the same
/// moment never inherits them.
int CLinux_pipeCloexec(int fds[2]);
/// A spawned child starts with no signal blocked and every signal at its default action (plus `flags`):
/// posix_spawn otherwise passes on the spawning thread's mask, and a dispatch worker thread blocks SIGTERM,
/// which would leave a helper that can never be stopped.
int CLinux_spawnCleanSignals(posix_spawnattr_t *attributes, short flags);

/// Gives freed heap back to the system (malloc_trim; malloc.h is not part of the Glibc module Swift imports),
/// so the agent's memory shrinks after a lock.
int CLinux_releaseFreeMemory(void);

#endif
