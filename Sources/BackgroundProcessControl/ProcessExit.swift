/// How an app's main process ended.
public struct ProcessExit: Sendable, Hashable, CustomStringConvertible {
    /// The process that ended.
    public let process: AppProcess
    /// Its exit status or the signal that ended it.
    public let status: TerminationStatus

    public init(process: AppProcess, status: TerminationStatus) {
        self.process = process
        self.status = status
    }

    /// `com.example.news (pid 4242) was killed by signal 9 (SIGKILL)`.
    public var description: String { "\(process) \(status)" }
}

/// The end of a process, as `waitid(2)` reports it.
public enum TerminationStatus: Sendable, Hashable, CustomStringConvertible {
    /// It called `exit` (or returned from `main`) with this code. `-1` when the status cannot
    /// be known: an adopted survivor (not this process's child), or a child something else in
    /// the process reaped first.
    case exited(code: Int32)
    /// A signal ended it; `coreDumped` when the kernel wrote a core dump.
    case signaled(signal: Int32, coreDumped: Bool)

    /// Whether it exited with status 0.
    public var isSuccess: Bool { self == .exited(code: 0) }

    /// `exited with status 3`, `was killed by signal 9 (SIGKILL)`.
    public var description: String {
        switch self {
        case .exited(let code):
            return "exited with status \(code)"
        case .signaled(let signal, let coreDumped):
            let name = SignalName.of(signal).map { " (\($0))" } ?? ""
            return "was killed by signal \(signal)\(name)\(coreDumped ? ", core dumped" : "")"
        }
    }
}

/// The names of the signals that end processes, for messages.
enum SignalName {
    static func of(_ signal: Int32) -> String? {
        let names: [Int32: String] = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
            8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE",
            14: "SIGALRM", 15: "SIGTERM",
        ]
        return names[signal]
    }
}
