import BackgroundExecution
import BackgroundPosix

/// The service manager's notification socket (`$NOTIFY_SOCKET`, systemd's `sd_notify`
/// protocol), spoken without a library: each notification is one datagram of `KEY=value` lines
/// sent to a Unix-domain datagram socket, named by a path or, when the variable starts with `@`,
/// an abstract name.
///
/// The daemon sends `STATUS=` as it starts, `READY=1` once its socket is served
/// (`Type=notify`: systemd starts what is ordered after it only then), `STOPPING=1` when it
/// begins to stop, and `WATCHDOG=1` while the service manager asks for it (``ServiceWatchdog``).
///
/// ```swift
/// let manager = try NotifySocket(environment: ProcessInfo.processInfo.environment)
/// try manager?.send(["READY=1", "STATUS=Serving /run/backgroundd/backgroundd.sock"])
/// ```
public final class NotifySocket: Sendable {
    /// The address notifications go to, as `$NOTIFY_SOCKET` gave it.
    public let address: String
    private let descriptor: Int32

    /// The socket `environment` names in `NOTIFY_SOCKET`; nil when it names none (the daemon
    /// was not started by a service manager that listens).
    ///
    /// - Throws: ``DaemonError`` (`badConfiguration`) for an address that is neither a path nor
    ///   an abstract name (systemd 253's `vsock:` addresses are not spoken), or a socket that
    ///   cannot be made.
    public convenience init?(environment: [String: String]) throws(DaemonError) {
        guard let address = environment["NOTIFY_SOCKET"], !address.isEmpty else { return nil }
        try self.init(address: address)
    }

    /// A notification socket for `address`: a path, or `@name` for an abstract socket.
    ///
    /// - Throws: ``DaemonError`` (`badConfiguration`) as ``init(environment:)``.
    public init(address: String) throws(DaemonError) {
        guard address.hasPrefix("/") || (address.hasPrefix("@") && address.utf8.count > 1) else {
            throw DaemonError(
                .badConfiguration,
                "NOTIFY_SOCKET=\(address) is neither a path nor an abstract socket name ('@name')"
            )
        }
        self.address = address
        do {
            descriptor = try SystemCall.unixDatagramSocket()
        } catch {
            throw DaemonError(.badConfiguration, "NOTIFY_SOCKET=\(address): \(error)")
        }
    }

    deinit { SystemCall.close(descriptor) }

    /// Sends `assignments` (`READY=1`, `STATUS=…`) as one notification. A line break inside a
    /// value is sent as a space: the protocol is one assignment per line.
    ///
    /// - Throws: ``DaemonError`` (`socket`) when the datagram cannot be sent (nobody listens).
    public func send(_ assignments: [String]) throws(DaemonError) {
        let text = assignments.map { assignment in
            String(assignment.map { $0.isNewline ? " " : $0 })
        }.joined(separator: "\n")
        do {
            try SystemCall.sendDatagram(descriptor, Array(text.utf8), to: address)
        } catch {
            throw DaemonError(.socket, "notification to \(address): \(error)")
        }
    }
}

/// The service manager's watchdog (`WatchdogSec=`): when it asks, the daemon says it is alive
/// at half the interval it gives, and the manager restarts a daemon that stops saying so.
public enum ServiceWatchdog {
    /// How often to ping the watchdog: half of `WATCHDOG_USEC`, as `sd_watchdog_enabled(3)`
    /// advises; nil when the service manager does not ask this process (no `WATCHDOG_USEC`, a
    /// value that is not a positive number of microseconds, or a `WATCHDOG_PID` of another
    /// process).
    public static func interval(environment: [String: String], processID: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"], !pid.isEmpty, Int32(pid) != processID { return nil }
        // At least a millisecond apart: a manager asking for less is not kept up with by busy looping.
        return .microseconds(max(Int64(clamping: microseconds / 2), 1000))
    }
}
