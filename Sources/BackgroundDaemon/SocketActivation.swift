public import BackgroundExecution
import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// The listening socket a service manager passed to the daemon (socket activation, systemd's
/// `sd_listen_fds` protocol), served instead of a socket the daemon binds itself.
///
/// systemd (a `.socket` unit, or `systemd-socket-activate` on a command line) creates and binds
/// the socket, and when it starts the daemon passes it as descriptor 3 onwards with
/// `LISTEN_FDS=<count>`, `LISTEN_PID=<the daemon's pid>` and, with names,
/// `LISTEN_FDNAMES=<name>:<name>…`. The daemon takes the one named ``name`` (or
/// `backgroundd.socket`, systemd's default name for the unit), or the only one passed when none
/// is named so; it must be a Unix-domain stream socket that listens and is bound to a path (the
/// apps it starts are told the path, to connect again after a restart). Anything else stops the
/// daemon at start-up with one line (``DaemonError/Code-swift.enum/badConfiguration``, exit 64),
/// never a silent fallback. Variables meant for another process (`LISTEN_PID` not this one) are
/// ignored, and the daemon binds its socket itself.
///
/// ```swift
/// if let activated = try SocketActivation.take(environment: ProcessInfo.processInfo.environment) {
///     print(activated.path)   // /run/backgroundd/backgroundd.sock
/// }
/// ```
public struct ActivatedSocket: Sendable, Hashable {
    /// The descriptor (3 or above), close-on-exec.
    public var descriptor: Int32
    /// Its name in `LISTEN_FDNAMES`, if names were passed.
    public var name: String?
    /// The path it is bound to.
    public var path: String

    /// Describes an activated socket.
    public init(descriptor: Int32, name: String?, path: String) {
        self.descriptor = descriptor
        self.name = name
        self.path = path
    }
}

/// Reads the sockets a service manager passed (see ``ActivatedSocket``).
public enum SocketActivation {
    /// The name the units give the daemon's socket (`FileDescriptorName=` in
    /// `dist/systemd/*/backgroundd.socket`).
    public static let name = "backgroundd"
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    /// The descriptors passed to `processID` by `environment`, with their names: nil when
    /// nothing was passed to this process (no `LISTEN_FDS` or `LISTEN_PID`, or the pid of
    /// another process).
    ///
    /// - Throws: ``DaemonError`` (`badConfiguration`) for a count or pid that is not a number,
    ///   or names that do not match the count.
    public static func passed(
        environment: [String: String],
        processID: Int32
    ) throws(DaemonError) -> [(descriptor: Int32, name: String?)]? {
        // As sd_listen_fds(3): without both variables nothing was passed.
        guard let countText = environment["LISTEN_FDS"], let pidText = environment["LISTEN_PID"] else { return nil }
        guard let pid = Int32(pidText), pid > 0 else {
            throw DaemonError(.badConfiguration, "socket activation: LISTEN_PID=\(pidText) is not a process id")
        }
        guard pid == processID else { return nil }
        guard let count = Int32(countText), count >= 0, count <= 1024 else {
            throw DaemonError(.badConfiguration, "socket activation: LISTEN_FDS=\(countText) is not a count")
        }
        var names: [String?] = Array(repeating: nil, count: Int(count))
        if let joined = environment["LISTEN_FDNAMES"] {
            let split = joined.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard split.count == Int(count) else {
                throw DaemonError(
                    .badConfiguration,
                    "socket activation: LISTEN_FDNAMES names \(split.count) descriptors, LISTEN_FDS passes \(count)"
                )
            }
            names = split
        }
        return names.enumerated().map { (firstDescriptor + Int32($0.offset), $0.element) }
    }

    /// Which of the passed descriptors is the daemon's: the one named ``name`` or
    /// `backgroundd.socket`, else the only one.
    ///
    /// - Throws: ``DaemonError`` (`badConfiguration`) when none or several could be it.
    public static func choose(
        from passed: [(descriptor: Int32, name: String?)]
    ) throws(DaemonError) -> (descriptor: Int32, name: String?) {
        let named = passed.filter { $0.name == name || $0.name == name + ".socket" }
        if named.count == 1 { return named[0] }
        if named.isEmpty, passed.count == 1 { return passed[0] }
        let names = passed.map { "\($0.descriptor)=\($0.name ?? "unnamed")" }.joined(separator: ", ")
        throw DaemonError(
            .badConfiguration,
            "socket activation: cannot tell which passed descriptor is the daemon's socket "
                + "(\(passed.isEmpty ? "none passed" : names)); name it '\(name)' (FileDescriptorName=)"
        )
    }

    /// Why `descriptor` cannot be served, if it cannot: it must be a Unix-domain stream socket
    /// that listens, bound to a path. Returns the path it is bound to.
    public static func check(_ descriptor: Int32) -> Result<String, DaemonError> {
        func refused(_ why: String) -> Result<String, DaemonError> {
            .failure(DaemonError(.badConfiguration, "socket activation: descriptor \(descriptor) \(why)"))
        }
        do {
            let status = try SystemCall.status(of: descriptor)
            guard status.st_mode & S_IFMT == S_IFSOCK else { return refused("is not a socket") }
            guard try SystemCall.socketOption(descriptor, SO_DOMAIN) == AF_UNIX else {
                return refused("is not a Unix-domain socket")
            }
            guard try SystemCall.socketOption(descriptor, SO_TYPE) == Int32(SOCK_STREAM.rawValue) else {
                return refused("is not a stream socket (ListenStream=)")
            }
            guard try SystemCall.socketOption(descriptor, SO_ACCEPTCONN) == 1 else {
                return refused("is not listening")
            }
            guard let path = try SystemCall.boundAddress(of: descriptor), path.hasPrefix("/") else {
                return refused("is not bound to a path (apps are told the socket's path)")
            }
            return .success(path)
        } catch {
            return refused("cannot be read: \(error)")
        }
    }

    /// The daemon's activated socket, if the service manager passed one to this process: the
    /// passed descriptors chosen and checked (see ``ActivatedSocket``), the others closed, all
    /// of them close-on-exec, and `LISTEN_FDS`, `LISTEN_PID` and `LISTEN_FDNAMES` removed from
    /// the environment so no child takes them for its own (as `sd_listen_fds(1)` does).
    ///
    /// - Throws: ``DaemonError`` (`badConfiguration`) naming what is wrong with what was passed.
    public static func take(
        environment: [String: String],
        processID: Int32 = getpid()
    ) throws(DaemonError) -> ActivatedSocket? {
        defer {
            for variable in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] { unsetenv(variable) }
        }
        guard let passed = try passed(environment: environment, processID: processID) else { return nil }
        for (descriptor, _) in passed { try? SystemCall.setFlags(descriptor, descriptor: FD_CLOEXEC) }
        let chosen = try choose(from: passed)
        for (descriptor, _) in passed where descriptor != chosen.descriptor { SystemCall.close(descriptor) }
        switch check(chosen.descriptor) {
        case .success(let path):
            return ActivatedSocket(descriptor: chosen.descriptor, name: chosen.name, path: path)
        case .failure(let error):
            SystemCall.close(chosen.descriptor)
            throw error
        }
    }
}
