import BackgroundPosix
import CProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

/// Starts an app process: the Swift side of `cps_spawn` (`Sources/CProcessSpawn`).
///
/// Why not `posix_spawn` or swift-subprocess: the app must start with an already-connected
/// socket as descriptor 3 and, when cgroups are in use, already inside its own cgroup, so that
/// nothing it forks can escape the freezer. swift-subprocess 1.0.2 closes every descriptor but
/// 0–2 and has no pre-exec hook on Linux. glibc 2.36 (Debian 12) `posix_spawn` passes the
/// socket with file actions but cannot place the child in a cgroup
/// (`posix_spawnattr_setcgroup_np` arrived in glibc 2.41), and placing it after the spawn lets
/// it run, and fork, first. A trampoline (spawn a helper that waits to be moved, then execs the
/// app) costs a second exec and a binary to find and trust. So the child is made with
/// `clone3(CLONE_INTO_CGROUP | CLONE_PIDFD)`, which is what glibc 2.41's `posix_spawn` does:
/// the kernel places it atomically and returns a pidfd with no pid-reuse race. Between clone
/// and exec the child only makes async-signal-safe calls (in C): its own process group, default
/// signal dispositions and an empty mask, the descriptor map, everything else closed
/// (`close_range`), the working directory, `execve`. Where `clone3` is refused (kernels before
/// 5.7, seccomp filters that answer `ENOSYS`), it forks and the child writes `0` to its
/// cgroup's `cgroup.procs` before exec, then the parent opens a pidfd with `pidfd_open`.
enum Spawner {
    /// A started process: its pid and a pidfd the caller owns.
    struct Started {
        var pid: pid_t
        var pidfd: Int32
    }

    /// Starts `request` (in `leaf` when given).
    static func spawn(
        _ request: SpawnRequest,
        in leaf: CgroupLeaf?,
        forcingFork: Bool = false
    ) throws(ProcessControlError) -> Started {
        let operation = "spawn \(request.label)"
        try validate(request, operation)
        let null = try openNull(operation)
        defer { SystemCall.close(null) }
        let (sources, targets) = descriptorMap(request, null: null)
        let argv = CStrings([request.executable] + request.arguments)
        let envp = CStrings(environment(of: request))
        defer {
            argv.free()
            envp.free()
        }
        var pid: pid_t = 0
        var pidfd: Int32 = -1
        var step: Int32 = 0
        var usedClone3: Int32 = 0
        try checkUser(request, operation)
        let groups: [gid_t] = request.user?.groups.map { gid_t($0) } ?? []
        let error = request.executable.withCString { path in
            request.workingDirectory.withCString { directory in
                sources.withUnsafeBufferPointer { sourceBuffer in
                    targets.withUnsafeBufferPointer { targetBuffer in
                        groups.withUnsafeBufferPointer { groupBuffer in
                            var spec = cps_request(
                                path: path,
                                argv: argv.pointer,
                                envp: envp.pointer,
                                directory: directory,
                                sources: sourceBuffer.baseAddress,
                                targets: targetBuffer.baseAddress,
                                count: Int32(sources.count),
                                cgroup: leaf?.directory.descriptor ?? -1,
                                cgroup_procs: leaf?.procs ?? -1,
                                force_fork: forcingFork ? 1 : 0,
                                probe_only: 0,
                                set_user: request.user == nil ? 0 : 1,
                                uid: uid_t(request.user?.uid ?? 0),
                                gid: gid_t(request.user?.gid ?? 0),
                                groups: groupBuffer.baseAddress,
                                group_count: Int32(groups.count),
                                set_umask: request.umask == nil ? 0 : 1,
                                umask_value: mode_t(request.umask ?? 0),
                                subreaper: leaf == nil ? 1 : 0  // no cgroup: descendants found by parentage
                            )
                            return cps_spawn(&spec, &pid, &pidfd, &step, &usedClone3)
                        }
                    }
                }
            }
        }
        guard error == 0 else {
            throw ProcessControlError(
                .spawnFailed,
                operation: operation,
                reason: "\(stepName(step, request)): \(String(cString: strerror(error))) (errno \(error))",
                errno: error
            )
        }
        return Started(pid: pid, pidfd: pidfd)
    }

    /// The environment as `NAME=value` strings, in the order of the names; the connection's
    /// variable is set when there is a connection and removed when there is none.
    static func environment(of request: SpawnRequest) -> [String] {
        var variables = request.environment
        variables[SpawnRequest.connectionVariable] = request.connection.map { _ in
            String(SpawnRequest.connectionDescriptor)
        }
        return variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// Parent descriptors and the numbers they get in the child: 0, 1, 2 and the connection.
    static func descriptorMap(_ request: SpawnRequest, null: Int32) -> (sources: [Int32], targets: [Int32]) {
        func source(_ stream: SpawnRequest.StandardStream, own: Int32) -> Int32 {
            switch stream {
            case .inherit: return own
            case .null: return null
            case .descriptor(let descriptor): return descriptor
            }
        }
        var sources = [
            source(request.standardInput, own: 0), source(request.standardOutput, own: 1),
            source(request.standardError, own: 2),
        ]
        var targets: [Int32] = [0, 1, 2]
        if let connection = request.connection {
            sources.append(connection)
            targets.append(SpawnRequest.connectionDescriptor)
        }
        return (sources, targets)
    }

    /// A user to run as must not be root (0) and the groups must fit `setgroups`; a request to
    /// run as another user from a daemon that is not root fails here with `EPERM`, not in the child.
    /// Refuses what `execve` could not be given as asked: relative paths, NUL bytes in
    /// arguments or variables, names that are empty or hold `=`.
    private static func validate(_ request: SpawnRequest, _ operation: String) throws(ProcessControlError) {
        guard request.executable.hasPrefix("/") else {
            throw ProcessControlError(
                .spawnFailed,
                operation: operation,
                reason: "\(request.executable) is not an absolute path"
            )
        }
        guard request.workingDirectory.hasPrefix("/") else {
            throw ProcessControlError(
                .spawnFailed,
                operation: operation,
                reason: "\(request.workingDirectory) is not an absolute path"
            )
        }
        let strings =
            [request.executable, request.workingDirectory] + request.arguments
            + request.environment.flatMap { [$0.key, $0.value] }
        guard !strings.contains(where: { $0.utf8.contains(0) }) else {
            throw ProcessControlError(
                .spawnFailed,
                operation: operation,
                reason: "an argument or variable contains a NUL byte"
            )
        }
        if let name = request.environment.keys.sorted().first(where: { $0.isEmpty || $0.contains("=") }) {
            throw ProcessControlError(
                .spawnFailed,
                operation: operation,
                reason: "'\(name)' is not an environment variable name"
            )
        }
    }

    private static func checkUser(_ request: SpawnRequest, _ operation: String) throws(ProcessControlError) {
        guard let user = request.user else { return }
        guard user.uid != 0, user.gid != 0, !user.groups.contains(0) else {
            throw ProcessControlError(
                .spawnFailed,
                operation: operation,
                reason: "\(user) names root (0): an app is never started as root"
            )
        }
        guard user.groups.count <= 64 else {
            throw ProcessControlError(
                .spawnFailed,
                operation: operation,
                reason: "\(user.groups.count) supplementary groups (at most 64)"
            )
        }
    }

    private static func openNull(_ operation: String) throws(ProcessControlError) -> Int32 {
        do {
            return try SystemCall.openAt(AT_FDCWD, "/dev/null", O_RDWR)
        } catch {
            throw ProcessControlError(.spawnFailed, operation: operation, error)
        }
    }

    private static func stepName(_ step: Int32, _ request: SpawnRequest) -> String {
        switch UInt32(step) {
        case CPS_STEP_PIPE.rawValue: return "pipe"
        case CPS_STEP_CLONE.rawValue: return "clone3"
        case CPS_STEP_PIDFD.rawValue: return "pidfd_open"
        case CPS_STEP_CGROUP.rawValue: return "moving it into its cgroup"
        case CPS_STEP_DESCRIPTORS.rawValue: return "passing its descriptors"
        case CPS_STEP_DIRECTORY.rawValue: return "working directory \(request.workingDirectory)"
        case CPS_STEP_EXEC.rawValue: return "\(request.executable) cannot be executed"
        case CPS_STEP_PROCESS_GROUP.rawValue: return "setsid"
        case CPS_STEP_SETGROUPS.rawValue: return "setgroups \(request.user?.groups ?? [])"
        case CPS_STEP_SETGID.rawValue: return "setgid \(request.user?.gid ?? 0)"
        case CPS_STEP_SETUID.rawValue: return "setuid \(request.user?.uid ?? 0)"
        case CPS_STEP_IDENTITY.rawValue: return "its ids after dropping to \(request.user?.description ?? "?")"
        default: return "step \(step)"
        }
    }
}

/// A NULL-terminated array of C strings, freed explicitly.
struct CStrings {
    let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointer = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointer[index] = strdup(string) }
        pointer[strings.count] = nil
    }

    func free() {
        var index = 0
        while let string = pointer[index] {
            Glibc.free(string)
            index += 1
        }
        pointer.deallocate()
    }
}
