// Confinement for a short-lived child process that parses untrusted bytes (images, import files): resource
// limits, and a seccomp filter from libseccomp (loaded with dlopen on first use, CSandboxSupport.c) that stops
// it opening files or sockets, starting processes or programs and changing the file system. Call both at the
// child's start, after it has loaded every library it needs: nothing can be opened or dlopen'ed afterwards.
#ifndef CSANDBOXSUPPORT_H
#define CSANDBOXSUPPORT_H

/// 1 when libseccomp.so.2 could be loaded and has every function CSandbox_confine needs.
int CSandbox_available(void);

/// Limits this process: address space `addressSpaceBytes` (soft and hard), CPU time `cpuSeconds` (SIGXCPU,
/// then SIGKILL a second later; 0 counts as 1), no core files, no file growth, at most 32 file
/// descriptors; not dumpable (no core, no ptrace by its peers) and no new privileges. A limit already lower
/// is kept. Returns 0, or -1 with a reason in `error` (256 bytes).
int CSandbox_limit(unsigned long long addressSpaceBytes, unsigned cpuSeconds, char *error);

/// Loads the seccomp filter into every thread of this process, for good: opening files, sockets, new
/// processes, exec and changes to the file system fail with EPERM; threads, memory, reading and writing
/// descriptors already open keep working. Returns 0, or -1 with a reason in `error` (256 bytes) and nothing
/// loaded.
int CSandbox_confine(char *error);

#endif
