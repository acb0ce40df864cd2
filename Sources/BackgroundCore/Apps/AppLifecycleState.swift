/// Where an app is in its life, as the system sees it.
///
/// Quinn's five states (forum thread 701945) map onto these cases: running in the foreground
/// (`active`/`inactive`), running in the background (`background`), suspended (`suspended`),
/// and terminated (`terminated`, whose reason says whether a relaunch is allowed).
public enum AppLifecycleState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Not launched since the system started.
    case notRunning
    /// In the foreground and receiving events.
    case active
    /// In the foreground but not receiving events (launching, or on the way to the background).
    case inactive
    /// Running in the background: under assertions, or in the five seconds of
    /// `applicationDidEnterBackground(_:)`.
    case background
    /// In memory but not running any code.
    case suspended
    /// Ended, with the reason.
    case terminated(TerminationReason)

    /// Whether the app's process is running code (foreground or background).
    public var isRunning: Bool {
        switch self {
        case .active, .inactive, .background: return true
        case .notRunning, .suspended, .terminated: return false
        }
    }

    /// Whether the app is in the foreground (`active` or `inactive`).
    public var isForeground: Bool { self == .active || self == .inactive }

    /// Whether the app has a process (running or suspended).
    public var hasProcess: Bool { isRunning || self == .suspended }

    public var description: String {
        switch self {
        case .notRunning: return "not running"
        case .active: return "active"
        case .inactive: return "inactive"
        case .background: return "background"
        case .suspended: return "suspended"
        case .terminated(let reason): return "terminated (\(reason))"
        }
    }
}

/// Why an app's process ended.
public enum TerminationReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The watchdog killed it with this code (`0x8badf00d`, `0xbada5e47`, …).
    case watchdog(ExceptionCode)
    /// The process exited by itself with this status (a service that finished its shutdown work).
    case exited(status: Int32)
    /// The user removed it from the app switcher: no background launches until the user opens it.
    case userForceQuit
    /// The system reclaimed it while suspended (memory pressure); it may be relaunched.
    case systemReclaimed

    /// The exception code, for watchdog terminations.
    public var code: ExceptionCode? {
        if case .watchdog(let code) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .watchdog(let code): return "watchdog \(code)"
        case .exited(let status): return "exited with status \(status)"
        case .userForceQuit: return "force quit by the user"
        case .systemReclaimed: return "reclaimed by the system"
        }
    }
}

/// How an app is launched.
public enum LaunchKind: String, Sendable, Hashable, Codable {
    /// The user opened it: it starts `inactive` and becomes `active`.
    case foreground
    /// The system launched it to do work: it starts in the `background`.
    case background
}

/// Whether an app may refresh content in the background; Apple's raw values (S6).
public enum BackgroundRefreshStatus: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Unavailable, and the user cannot turn it on (for example parental controls).
    case restricted = 0
    /// Turned off by the user for this app or the whole system, or by Low Power Mode.
    case denied = 1
    /// Available.
    case available = 2

    public var description: String {
        switch self {
        case .restricted: return "restricted"
        case .denied: return "denied"
        case .available: return "available"
        }
    }
}
