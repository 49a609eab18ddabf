#define _GNU_SOURCE
// The sandbox's C side (see CSandboxSupport.h): resource limits with setrlimit and prctl, and a seccomp filter
// built with libseccomp, loaded with dlopen once (seccomp_rule_add is variadic, which Swift cannot call).
#include "CSandboxSupport.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <signal.h>
#include <unistd.h>

struct CSandbox_API {
    scmp_filter_ctx (*init)(uint32_t);
    int (*rule_add)(scmp_filter_ctx, uint32_t, int, unsigned int, ...);
    int (*attr_set)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t);
    int (*load)(const scmp_filter_ctx);
    void (*release)(scmp_filter_ctx);
    int loaded;
};

static struct CSandbox_API api;

static void CSandbox_loadOnce(void) {
    void *h = dlopen("libseccomp.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    api.init = (scmp_filter_ctx(*)(uint32_t))dlsym(h, "seccomp_init");
    api.rule_add = (int (*)(scmp_filter_ctx, uint32_t, int, unsigned int, ...))dlsym(h, "seccomp_rule_add");
    api.attr_set = (int (*)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t))dlsym(h, "seccomp_attr_set");
    api.load = (int (*)(const scmp_filter_ctx))dlsym(h, "seccomp_load");
    api.release = (void (*)(scmp_filter_ctx))dlsym(h, "seccomp_release");
    if (!api.init || !api.rule_add || !api.attr_set || !api.load || !api.release) return;
    api.loaded = 1;
}

int CSandbox_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CSandbox_loadOnce);
    return api.loaded;
}

// Sets one limit; a hard limit already below `hard` is kept (an unprivileged process cannot raise it).
static int CSandbox_setLimit(int resource, const char *name, rlim_t soft, rlim_t hard, char *error) {
    struct rlimit now;
    if (getrlimit(resource, &now) == 0 && now.rlim_max != RLIM_INFINITY && hard > now.rlim_max) hard = now.rlim_max;
    if (soft > hard) soft = hard;
    struct rlimit limit = {.rlim_cur = soft, .rlim_max = hard};
    if (setrlimit(resource, &limit) != 0) {
        snprintf(error, 256, "cannot set %s (%s)", name, strerror(errno));
        return -1;
    }
    return 0;
}

int CSandbox_limit(unsigned long long addressSpaceBytes, unsigned cpuSeconds, char *error) {
    error[0] = 0;
    if (cpuSeconds == 0) cpuSeconds = 1;  // a limit of no CPU time at all is not meant
    if (CSandbox_setLimit(RLIMIT_AS, "RLIMIT_AS", (rlim_t)addressSpaceBytes, (rlim_t)addressSpaceBytes, error) ||
        CSandbox_setLimit(RLIMIT_CPU, "RLIMIT_CPU", (rlim_t)cpuSeconds, (rlim_t)cpuSeconds + 1, error) ||
        CSandbox_setLimit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0, error) ||
        CSandbox_setLimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", 0, 0, error) ||
        CSandbox_setLimit(RLIMIT_NOFILE, "RLIMIT_NOFILE", 32, 32, error))
        return -1;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        snprintf(error, 256, "cannot clear the dumpable flag (%s)", strerror(errno));
        return -1;
    }
    // The child ends with its parent: a job nobody waits for any more is not left running.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
        snprintf(error, 256, "cannot ask to end with the parent (%s)", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(error, 256, "cannot set no-new-privileges (%s)", strerror(errno));
        return -1;
    }
    return 0;
}

// A syscall the filter refuses with EPERM, by its number on this architecture (negative, a libseccomp
// "pseudo" number, where the architecture has no such call, as open, fork or mkdir on arm64: skipped).
struct CSandbox_Denied {
    int number;
    const char *name;
};
#define CSANDBOX_DENY(name) {SCMP_SYS(name), #name}

// Adds one rule, with one comparison of an argument or none; a syscall this architecture lacks (a negative,
// "pseudo" number) is skipped. Returns 0, or -1 with a reason in `error`.
static int CSandbox_add(scmp_filter_ctx filter, uint32_t action, int number, const char *name, const struct scmp_arg_cmp *compare, char *error) {
    if (number < 0) return 0;
    int rc = compare ? api.rule_add(filter, action, number, 1, *compare) : api.rule_add(filter, action, number, 0);
    if (rc < 0) {
        snprintf(error, 256, "cannot add the rule for %s (%s)", name, strerror(-rc));
        return -1;
    }
    return 0;
}

int CSandbox_confine(char *error) {
    error[0] = 0;
    if (!CSandbox_available()) {
        snprintf(error, 256, "libseccomp.so.2 could not be loaded (install libseccomp2)");
        return -1;
    }

    // A deny-list on a default of SCMP_ACT_ALLOW, refused with EPERM rather than killed: the Swift runtime,
    // malloc, threads (clone with CLONE_THREAD, futex, mmap, mprotect, madvise), clocks, getrandom and the
    // decoders' own calls must keep working, and which of those a given libc, runtime or decoder makes changes
    // from release to release, so an allow-list would break on some update; a refused call returns an error
    // the code already handles, where a kill would look like a crash. What it stops: opening any file (open,
    // openat, openat2, creat, open_by_handle_at, open_tree, uselib), any socket (socket, socketpair, connect,
    // bind, listen, accept: the inherited pipe or socket to the parent still reads and writes, sendmsg and
    // recvmsg included, so descriptors can still be passed in), any new process or program (execve,
    // execveat, fork, vfork, clone without CLONE_THREAD, clone3 answered ENOSYS so glibc falls back to clone,
    // whose flags the filter can read; ptrace, process_vm_*, pidfd_getfd into another process), any change
    // to the file system (mkdir, rmdir, mknod, unlink, rename, link, symlink, chmod, chown, truncate by path,
    // timestamps, extended attributes, mount and the mount API, chroot, pivot_root), and kernel surfaces
    // a parser has no use for (unshare, setns, bpf, perf_event_open, userfaultfd, io_uring, the keyrings).
    // Left allowed on purpose: memfd_create and ftruncate (a memfd may need sizing), read, write, sendmsg
    // and recvmsg on any descriptor the child was given, and signals to itself (below: any other
    // target is refused). Syscalls of other ABIs (i386 int 0x80, x32) do not match the filter's
    // architecture and kill the process (libseccomp's default for a foreign architecture).
    static const struct CSandbox_Denied denied[] = {
        // files
        CSANDBOX_DENY(open), CSANDBOX_DENY(openat), CSANDBOX_DENY(creat),
#ifdef __SNR_openat2
        CSANDBOX_DENY(openat2),
#endif
        CSANDBOX_DENY(open_by_handle_at), CSANDBOX_DENY(name_to_handle_at), CSANDBOX_DENY(uselib),
#ifdef __SNR_open_tree
        CSANDBOX_DENY(open_tree),
#endif
        // sockets
        CSANDBOX_DENY(socket), CSANDBOX_DENY(socketpair), CSANDBOX_DENY(connect), CSANDBOX_DENY(bind),
        CSANDBOX_DENY(listen), CSANDBOX_DENY(accept), CSANDBOX_DENY(accept4),
        // processes and programs (clone and clone3 below)
        CSANDBOX_DENY(execve), CSANDBOX_DENY(execveat), CSANDBOX_DENY(fork), CSANDBOX_DENY(vfork),
        CSANDBOX_DENY(ptrace), CSANDBOX_DENY(process_vm_readv), CSANDBOX_DENY(process_vm_writev),
#ifdef __SNR_pidfd_getfd
        CSANDBOX_DENY(pidfd_getfd),
#endif
#ifdef __SNR_process_madvise
        CSANDBOX_DENY(process_madvise),
#endif
        // signals whose target the filter cannot compare (kill and tgkill below)
        CSANDBOX_DENY(tkill),
#ifdef __SNR_pidfd_send_signal
        CSANDBOX_DENY(pidfd_send_signal),
#endif
#ifdef __SNR_pidfd_open
        CSANDBOX_DENY(pidfd_open),
#endif
        // the file system (ftruncate stays: it only sizes a descriptor already open, as a memfd)
        CSANDBOX_DENY(mkdir), CSANDBOX_DENY(mkdirat), CSANDBOX_DENY(rmdir), CSANDBOX_DENY(mknod),
        CSANDBOX_DENY(mknodat), CSANDBOX_DENY(unlink), CSANDBOX_DENY(unlinkat), CSANDBOX_DENY(rename),
        CSANDBOX_DENY(renameat), CSANDBOX_DENY(renameat2), CSANDBOX_DENY(link), CSANDBOX_DENY(linkat),
        CSANDBOX_DENY(symlink), CSANDBOX_DENY(symlinkat), CSANDBOX_DENY(chmod), CSANDBOX_DENY(fchmod),
        CSANDBOX_DENY(fchmodat), CSANDBOX_DENY(chown), CSANDBOX_DENY(fchown), CSANDBOX_DENY(fchownat),
        CSANDBOX_DENY(lchown), CSANDBOX_DENY(truncate), CSANDBOX_DENY(utime), CSANDBOX_DENY(utimes),
        CSANDBOX_DENY(utimensat), CSANDBOX_DENY(futimesat), CSANDBOX_DENY(setxattr), CSANDBOX_DENY(lsetxattr),
        CSANDBOX_DENY(removexattr), CSANDBOX_DENY(lremovexattr),
        CSANDBOX_DENY(mount), CSANDBOX_DENY(umount2), CSANDBOX_DENY(chroot), CSANDBOX_DENY(pivot_root),
#ifdef __SNR_fsopen
        CSANDBOX_DENY(fsopen), CSANDBOX_DENY(fsconfig), CSANDBOX_DENY(fsmount), CSANDBOX_DENY(fspick),
        CSANDBOX_DENY(move_mount),
#endif
#ifdef __SNR_mount_setattr
        CSANDBOX_DENY(mount_setattr),
#endif
        // kernel surfaces
        CSANDBOX_DENY(unshare), CSANDBOX_DENY(setns), CSANDBOX_DENY(bpf), CSANDBOX_DENY(perf_event_open),
        CSANDBOX_DENY(userfaultfd), CSANDBOX_DENY(keyctl), CSANDBOX_DENY(add_key), CSANDBOX_DENY(request_key),
#ifdef __SNR_io_uring_setup
        CSANDBOX_DENY(io_uring_setup),
#endif
    };

    scmp_filter_ctx filter = api.init(SCMP_ACT_ALLOW);
    if (!filter) {
        snprintf(error, 256, "seccomp_init failed");
        return -1;
    }
    // Every thread gets the filter, not only the caller: the runtime may have started some already.
    int tsync = api.attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    if (tsync < 0) {
        snprintf(error, 256, "cannot ask for the filter on every thread (%s)", strerror(-tsync));
        goto failed;
    }
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        if (CSandbox_add(filter, SCMP_ACT_ERRNO(EPERM), denied[i].number, denied[i].name, NULL, error)) goto failed;
    }
    // clone: a new thread (CLONE_THREAD) is allowed, a new process refused. s390 passes the flags second.
#if defined(__s390__) || defined(__s390x__)
    const struct scmp_arg_cmp newProcess = SCMP_A1(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
#else
    const struct scmp_arg_cmp newProcess = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
#endif
    if (CSandbox_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), "clone", &newProcess, error)) goto failed;
    // clone3 passes its flags in memory the filter cannot read: ENOSYS makes glibc fall back to clone.
#ifdef __SNR_clone3
    if (CSandbox_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), "clone3", NULL, error)) goto failed;
#endif
    // ioctl TIOCSTI and TIOCLINUX: no typing into, or reading from, a terminal the child may have inherited
    // (the kernel reads the request as 32 bits, so only those are compared).
    const struct scmp_arg_cmp terminal[] = {SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCSTI), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCLINUX)};
    for (size_t i = 0; i < sizeof terminal / sizeof terminal[0]; i++) {
        if (CSandbox_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), "ioctl", &terminal[i], error)) goto failed;
    }
    // Signals only to itself: kill and tgkill with another target (another pid, 0 for the process group the
    // parent shares, -1 for every process of the user) are refused (tkill, pidfd_send_signal and pidfd_open,
    // whose targets the filter cannot compare, are in the list above). raise() and pthread_kill() use tgkill
    // on this pid.
    const struct scmp_arg_cmp another = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)(uint32_t)getpid());
    if (CSandbox_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), "kill", &another, error) ||
        CSandbox_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tgkill), "tgkill", &another, error))
        goto failed;
    // prlimit64 on another process (the parent has the same uid): refused; on itself (pid 0, as glibc calls
    // it for getrlimit and setrlimit) allowed.
    const struct scmp_arg_cmp notItself = SCMP_A0(SCMP_CMP_NE, 0, 0);
    if (CSandbox_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), "prlimit64", &notItself, error)) goto failed;

    // The last step: the kernel takes the whole filter or none of it.
    int rc = api.load(filter);
    if (rc < 0) {
        snprintf(error, 256, "cannot load the seccomp filter (%s)", strerror(-rc));
        goto failed;
    }
    api.release(filter);
    return 0;

failed:
    api.release(filter);
    return -1;
}
