import BackgroundCore
import BackgroundPosix

/// Why a process-control operation failed: what was being done, to what, and why.
///
/// ```text
/// spawn com.example.news: /opt/news/news cannot be executed: No such file or directory (errno 2)
/// ```
public struct ProcessControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Sendable, Hashable {
        /// Starting the process failed (executable, working directory, descriptors).
        case spawnFailed = "spawn-failed"
        /// The cgroup subtree or an app's cgroup could not be created, checked or written.
        case cgroupFailed = "cgroup-failed"
        /// The app was not frozen within the timeout; it was thawed again.
        case freezeTimedOut = "freeze-timed-out"
        /// The app's main process has exited; there is nothing to act on.
        case notRunning = "not-running"
        /// The handle was not made by this controller.
        case unknownProcess = "unknown-process"
        /// Reading `/proc` failed.
        case procReadFailed = "proc-read-failed"
        /// Another system call failed.
        case systemCallFailed = "system-call-failed"
    }

    /// What failed.
    public let code: Code
    /// What it was doing, to what: `spawn com.example.news`.
    public let operation: String
    /// Why, in a phrase.
    public let reason: String
    /// The `errno` of the system call that failed, if one did.
    public let errno: Int32?

    public init(_ code: Code, operation: String, reason: String, errno: Int32? = nil) {
        self.code = code
        self.operation = operation
        self.reason = reason
        self.errno = errno
    }

    init(_ code: Code, operation: String, _ error: SystemCallError) {
        self.init(code, operation: operation, reason: error.description, errno: error.code)
    }

    /// One line: `<operation>: <reason>`, control characters escaped.
    public var description: String {
        ControlCharacters.escaped("\(operation): \(reason)")
    }
}
