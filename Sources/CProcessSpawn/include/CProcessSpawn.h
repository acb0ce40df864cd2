// The one piece of the project's process control that cannot be Swift: the code that runs in a
// new child between clone and exec, where only async-signal-safe calls are allowed (the
// daemon is multithreaded, so another thread may hold the allocator's lock at that moment).
#ifndef C_PROCESS_SPAWN_H
#define C_PROCESS_SPAWN_H

#include <poll.h>
#include <sys/types.h>

/// What to start and how. Every pointer is read by the child before exec.
typedef struct {
    /// The program, an absolute path.
    const char *path;
    /// NULL-terminated argument and environment vectors.
    char *const *argv;
    char *const *envp;
    /// The working directory, an absolute path.
    const char *directory;
    /// Descriptor `sources[i]` of the parent becomes `targets[i]` in the child; every other
    /// descriptor is closed in the child before exec.
    const int *sources;
    const int *targets;
    int count;
    /// An `O_DIRECTORY` descriptor of the cgroup to start the child in, or -1 for the parent's.
    int cgroup;
    /// That cgroup's `cgroup.procs` opened for writing, or -1: used only where `clone3` is
    /// refused (old kernels, seccomp filters), by the child writing "0" to it before exec.
    int cgroup_procs;
    /// Tests only: nonzero takes the fork fallback, as if `clone3` were refused.
    int force_fork;
    /// Nonzero: the child exits 0 once placed in its cgroup (`cps_probe_cgroup`); nothing is run.
    int probe_only;
    /// Nonzero: after the descriptors are in place and before the working directory and exec,
    /// the child calls `setgroups(group_count, groups)`, `setresgid(gid, gid, gid)` and
    /// `setresuid(uid, uid, uid)`, in that order, as raw system calls (glibc's wrappers would
    /// signal the parent's threads), and checks with `getresuid`/`getresgid` that every id
    /// changed: any failure is reported and nothing is run. `uid` and `gid` must not be 0.
    int set_user;
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int group_count;
    /// Nonzero: the child sets its file mode creation mask to `umask_value` before exec.
    int set_umask;
    mode_t umask_value;
    /// Nonzero: the child becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`, kept across
    /// exec): what its descendants leave behind (a double fork, the child of a `setsid` child
    /// that ended) becomes its child, not init's, so every process it starts stays its
    /// descendant, where the SIGSTOP fallback finds it.
    int subreaper;
} cps_request;

/// The step that failed, for the error message.
typedef enum {
    CPS_STEP_NONE = 0,
    CPS_STEP_PIPE = 1,
    CPS_STEP_CLONE = 2,
    CPS_STEP_PIDFD = 3,
    CPS_STEP_CGROUP = 4,
    CPS_STEP_DESCRIPTORS = 5,
    CPS_STEP_DIRECTORY = 6,
    CPS_STEP_EXEC = 7,
    CPS_STEP_PROCESS_GROUP = 8,
    CPS_STEP_SETGROUPS = 9,
    CPS_STEP_SETGID = 10,
    CPS_STEP_SETUID = 11,
    CPS_STEP_IDENTITY = 12,
} cps_step;

/// Starts the child in its own process group (its pid is its group id), with every signal's
/// disposition reset to the default and an empty signal mask.
///
/// Returns 0 and sets `*pid` and `*pidfd` (close-on-exec), or returns an errno value and sets
/// `*failed_step`; a child that failed before exec has been reaped. `*used_clone3` says
/// whether the child was made by `clone3` (with `CLONE_INTO_CGROUP` when a cgroup was given).
int cps_spawn(const cps_request *request, pid_t *pid, int *pidfd, int *failed_step, int *used_clone3);

/// How a child ended, from `waitid(P_PIDFD, pidfd, WEXITED)`, which reaps it: returns 0 and
/// sets `*signaled` (1 if a signal ended it), `*value` (the exit code or the signal) and
/// `*core_dumped`, or returns an errno value.
int cps_reap(int pidfd, int *signaled, int *value, int *core_dumped);

/// Whether a process can be started in the cgroup open at `cgroup` (`procs`: its
/// `cgroup.procs`, for the fork fallback): starts a child there that exits at once, and reaps
/// it. Returns 0, or the errno that placing it failed with.
int cps_probe_cgroup(int cgroup, int procs);

/// `pidfd_open(2)` (Linux 5.3): a close-on-exec pidfd for any process, child or not; -1 and
/// `errno` on failure.
int cps_pidfd_open(pid_t pid);

/// `pidfd_send_signal(2)` (Linux 5.1): `signal` to the process `pidfd` refers to, never to a
/// later process given its pid; 0, or -1 and `errno`.
int cps_pidfd_send_signal(int pidfd, int signal);

/// `ppoll(2)` with a timeout in nanoseconds (-1: none), for waits shorter than a millisecond;
/// returns what `ppoll` returns, with `errno` set.
int cps_poll_nanoseconds(struct pollfd *descriptors, unsigned long count, long long nanoseconds);

#endif
