import BackgroundExecution
import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// The system calls `bgctl fuzz --jobs N` adds to the project's ``SystemCall`` for its worker
/// processes, in one place and by the same rules: `EINTR` retried, `-1` becomes a
/// ``SystemCallError``, every descriptor created close-on-exec (so one worker never holds
/// another's pipes open, which would hide that worker's end).
extension SystemCall {
    /// A pipe whose two ends are close-on-exec (blocking: the loop polls before it reads, and
    /// the worker's ends must block). One thread spawns the workers, so no spawn happens
    /// between `pipe` and `fcntl`.
    static func closeOnExecPipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        _ = try retrying("pipe") { Glibc.pipe(&descriptors) }
        for descriptor in descriptors { try setFlags(descriptor, descriptor: FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// `posix_spawn(3)` of `executable`, called `name` (its `argv[0]`, what `ps` shows), with
    /// `standardInput`, `standardOutput` and
    /// `standardError` as its descriptors 0, 1 and 2. The child starts with no signal blocked
    /// and every signal at its default (this process ignores `SIGPIPE` while workers run; a
    /// worker must still die of it when its parent is gone).
    static func spawn(
        _ executable: String,
        name: String,
        arguments: [String],
        environment: [String],
        standardInput: Int32,
        standardOutput: Int32,
        standardError: Int32
    ) throws(SystemCallError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(standardInput, 0), (standardOutput, 1), (standardError, 2)] {
            let result = posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
            if result != 0 { throw SystemCallError(call: "posix_spawn_file_actions_adddup2", code: result) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([name] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        if result != 0 { throw SystemCallError(call: "posix_spawn", subject: executable, code: result) }
        return pid
    }

    /// How a child ended, and what it used.
    struct ChildEnd {
        /// The raw wait status.
        var status: Int32
        /// Its resource use (`ru_maxrss` is its peak resident set in KiB).
        var usage: rusage

        /// The exit status, if it exited.
        var exitStatus: Int32? { status & 0x7f == 0 ? (status >> 8) & 0xff : nil }
        /// The signal that ended it, if one did.
        var signal: Int32? { status & 0x7f != 0 && status & 0x7f != 0x7f ? status & 0x7f : nil }
    }

    /// `wait4(2)`: waits for the child `pid` to end and reaps it.
    static func wait(for pid: pid_t) throws(SystemCallError) -> ChildEnd {
        var status: Int32 = 0
        var usage = rusage()
        _ = try retrying("wait4", "\(pid)") { Glibc.wait4(pid, &status, 0, &usage) }
        return ChildEnd(status: status, usage: usage)
    }

    /// `poll(2)` with no timeout; returns how many descriptors are ready.
    static func poll(_ descriptors: inout [pollfd]) throws(SystemCallError) -> Int32 {
        let count = nfds_t(descriptors.count)
        return try retrying("poll") { Glibc.poll(&descriptors, count, -1) }
    }

    /// Writes every byte, or fails with the `errno` (`EPIPE` when the reader is gone, with
    /// `SIGPIPE` ignored).
    static func writeLine(_ descriptor: Int32, _ line: String) throws(SystemCallError) {
        try writeAll(descriptor, Array(line.utf8))
    }

    /// Ignores `SIGPIPE` while workers run (a write to a worker that died then fails with
    /// `EPIPE` instead of ending this process), or restores its default.
    static func ignoreBrokenPipes(_ ignore: Bool) {
        _ = Glibc.signal(SIGPIPE, ignore ? SIG_IGN : SIG_DFL)
    }

    /// Where a symbolic link points (`readlink(2)`), or `nil`: `/proc/self/exe` names this
    /// executable.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = Glibc.readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `kill(2)` with `SIGKILL`, for a worker left running when the run stops early; a worker
    /// already gone is no error.
    static func killNow(_ pid: pid_t) {
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// This process's own peak resident set, in bytes (`getrusage(2)`).
    static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }
}
