// See CProcessSpawn.h. Why not posix_spawn: glibc 2.36 (Debian 12) cannot start a child in a
// cgroup (posix_spawnattr_setcgroup_np arrived in glibc 2.41) and has no pidfd_spawn (2.39);
// swift-subprocess 1.0.2 closes every descriptor but 0-2 and has no pre-exec hook on Linux.
// This is what glibc 2.41's posix_spawn does with clone3(CLONE_INTO_CGROUP), without CLONE_VM
// (a copy-on-write child, so no separate stack is needed) and with a pipe for the child's error.
#define _GNU_SOURCE
#include "CProcessSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

struct cps_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
        set_tid_size, cgroup;
};

struct cps_failure {
    int step;
    int error;
};

// Child side: report the failing step and errno to the parent, then exit without running any
// of the parent's atexit handlers.
static void cps_fail(int report, int step) {
    struct cps_failure failure = {step, errno};
    ssize_t ignored = write(report, &failure, sizeof failure);
    (void)ignored;
    _exit(127);
}

// Closes every descriptor from `low` to `high` inclusive.
static void cps_close_range(unsigned low, unsigned high) {
    if (low > high) return;
    if (syscall(SYS_close_range, low, high, 0) == 0) return;
    // Before Linux 5.9: close one by one, up to the descriptor limit (at most 2^20).
    struct rlimit limit;
    unsigned top = 1u << 20;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < top) top = (unsigned)limit.rlim_cur;
    if (high < top) top = high;
    for (unsigned descriptor = low; descriptor <= top && descriptor >= low; descriptor++) close((int)descriptor);
}

// Child side: drops to the app's user. Raw system calls, as glibc 2.41's posix_spawn makes
// them: glibc's setuid and friends broadcast the change to every thread glibc knows of, and
// in a child made by clone3 those are the parent's threads. Groups first (it needs root),
// then the group id, then the user id (after which nothing can be changed back); each result
// is checked, then every id is read back, so an app never runs as root by accident.
static void cps_become(const cps_request *request, int report) {
    if (request->uid == 0 || request->gid == 0) {
        errno = EINVAL;
        cps_fail(report, CPS_STEP_IDENTITY);
    }
    if (syscall(SYS_setgroups, (size_t)request->group_count, request->groups) != 0) cps_fail(report, CPS_STEP_SETGROUPS);
    if (syscall(SYS_setresgid, request->gid, request->gid, request->gid) != 0) cps_fail(report, CPS_STEP_SETGID);
    if (syscall(SYS_setresuid, request->uid, request->uid, request->uid) != 0) cps_fail(report, CPS_STEP_SETUID);
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    if (syscall(SYS_getresuid, &ruid, &euid, &suid) != 0 || syscall(SYS_getresgid, &rgid, &egid, &sgid) != 0) {
        cps_fail(report, CPS_STEP_IDENTITY);
    }
    if (ruid != request->uid || euid != request->uid || suid != request->uid || rgid != request->gid
        || egid != request->gid || sgid != request->gid) {
        errno = EPERM;
        cps_fail(report, CPS_STEP_IDENTITY);
    }
}

// Child side, between clone and exec: only async-signal-safe calls.
static void cps_child(const cps_request *request, int report, int move_self) {
    // The kernel's own sigaction, all zero: SIG_DFL, no flags, an empty mask, on every
    // architecture. glibc's sigaction refuses its internal signals (32 and 33), which the
    // daemon's runtime may ignore; ignored dispositions survive exec, so they are reset too.
    uint64_t kernel_action[4] = {0, 0, 0, 0};
    for (int signal = 1; signal < NSIG; signal++) {
        if (signal != SIGKILL && signal != SIGSTOP) syscall(SYS_rt_sigaction, signal, kernel_action, NULL, 8);
    }
    // A session of its own (and so a process group whose id is its pid): in the daemon's
    // session, a group stopped by SIGSTOP would become orphaned when the daemon dies, and the
    // kernel then sends it SIGHUP and SIGCONT (POSIX's orphaned process group rule), which kills
    // a survivor the SIGSTOP fallback froze. A group in another session is never orphaned by it.
    if (setsid() < 0) cps_fail(report, CPS_STEP_PROCESS_GROUP);
    if (request->subreaper && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        cps_fail(report, CPS_STEP_PROCESS_GROUP);
    }
    if (move_self && request->cgroup_procs >= 0) {
        if (write(request->cgroup_procs, "0", 1) != 1) cps_fail(report, CPS_STEP_CGROUP);
    }
    if (request->probe_only) _exit(0);  // placed: that is all a probe asks
    // Lift every source above the highest target first, so a mapping like 3->4, 4->3 works.
    int highest = 2;
    for (int i = 0; i < request->count; i++) {
        if (request->targets[i] > highest) highest = request->targets[i];
    }
    if (report <= highest) {
        int moved = fcntl(report, F_DUPFD_CLOEXEC, highest + 1);
        if (moved < 0) _exit(127);
        report = moved;
    }
    int lifted[request->count > 0 ? request->count : 1];
    for (int i = 0; i < request->count; i++) {
        lifted[i] = fcntl(request->sources[i], F_DUPFD_CLOEXEC, highest + 1);
        if (lifted[i] < 0) cps_fail(report, CPS_STEP_DESCRIPTORS);
    }
    for (int i = 0; i < request->count; i++) {
        if (dup2(lifted[i], request->targets[i]) < 0) cps_fail(report, CPS_STEP_DESCRIPTORS);
    }
    for (int descriptor = 0; descriptor <= highest; descriptor++) {
        int wanted = 0;
        for (int i = 0; i < request->count; i++) wanted |= request->targets[i] == descriptor;
        if (!wanted) close(descriptor);
    }
    cps_close_range((unsigned)highest + 1, (unsigned)report - 1);
    cps_close_range((unsigned)report + 1, ~0U);
    if (request->set_user) cps_become(request, report);
    if (request->set_umask) umask(request->umask_value);
    if (chdir(request->directory) != 0) cps_fail(report, CPS_STEP_DIRECTORY);
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    execve(request->path, request->argv, request->envp);
    cps_fail(report, CPS_STEP_EXEC);
}

// Parent side: clone3 when the kernel allows it, fork otherwise.
static pid_t cps_clone(const cps_request *request, int *pidfd, int *used_clone3) {
    if (request->force_fork) {
        *used_clone3 = 0;
        *pidfd = -1;
        return fork();
    }
    struct cps_clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_PIDFD;
    args.pidfd = (uint64_t)(uintptr_t)pidfd;
    args.exit_signal = SIGCHLD;
    if (request->cgroup >= 0) {
        args.flags |= CLONE_INTO_CGROUP;
        args.cgroup = (uint64_t)request->cgroup;
    }
    long result = syscall(SYS_clone3, &args, sizeof args);
    if (result >= 0) {
        *used_clone3 = 1;
        return (pid_t)result;
    }
    if (errno != ENOSYS && errno != EPERM && errno != E2BIG) return -1;
    *used_clone3 = 0;
    *pidfd = -1;
    return fork();
}

int cps_spawn(const cps_request *request, pid_t *pid, int *pidfd, int *failed_step, int *used_clone3) {
    *failed_step = CPS_STEP_NONE;
    *pidfd = -1;
    *used_clone3 = 0;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        *failed_step = CPS_STEP_PIPE;
        return errno;
    }
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t child = cps_clone(request, pidfd, used_clone3);
    if (child == 0) {
        close(report[0]);
        cps_child(request, report[1], !*used_clone3);
    }
    int clone_error = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        *failed_step = CPS_STEP_CLONE;
        return clone_error;
    }
    struct cps_failure failure = {0, 0};
    ssize_t got;
    do {
        got = read(report[0], &failure, sizeof failure);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof failure) {
        if (*pidfd >= 0) close(*pidfd);
        *pidfd = -1;
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        *failed_step = failure.step;
        return failure.error;
    }
    if (*pidfd < 0) {
        // The child is ours and not yet reaped, so its pid cannot have been reused.
        long descriptor = syscall(SYS_pidfd_open, child, 0);
        if (descriptor < 0) {
            int error = errno;
            kill(child, SIGKILL);
            int status;
            while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
            *failed_step = CPS_STEP_PIDFD;
            return error;
        }
        *pidfd = (int)descriptor;
    }
    *pid = child;
    return 0;
}

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

int cps_reap(int pidfd, int *signaled, int *value, int *core_dumped) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    while (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, WEXITED) != 0) {
        if (errno != EINTR) return errno;
    }
    *signaled = info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED;
    *core_dumped = info.si_code == CLD_DUMPED;
    *value = info.si_status;
    return 0;
}

int cps_probe_cgroup(int cgroup, int procs) {
    cps_request request;
    memset(&request, 0, sizeof request);
    request.cgroup = cgroup;
    request.cgroup_procs = procs;
    request.probe_only = 1;
    pid_t pid = 0;
    int pidfd = -1, failed_step = 0, used_clone3 = 0;
    int error = cps_spawn(&request, &pid, &pidfd, &failed_step, &used_clone3);
    if (error != 0) return error;
    close(pidfd);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return 0;
}

int cps_poll_nanoseconds(struct pollfd *descriptors, unsigned long count, long long nanoseconds) {
    if (nanoseconds < 0) return ppoll(descriptors, (nfds_t)count, NULL, NULL);
    struct timespec timeout = {(time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL)};
    return ppoll(descriptors, (nfds_t)count, &timeout, NULL);
}

int cps_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int cps_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}
