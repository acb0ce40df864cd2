/// The code a watchdog termination carries, as in the `Termination Reason` line of an Apple crash report.
///
/// ```swift
/// report.code == .watchdogTimeout     // 0x8badf00d, "ate bad food"
/// ```
public struct ExceptionCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `0x8badf00d`: the watchdog ended the app, for example for a leaked background task or an
    /// expiration handler that took too long (S1, R1.12).
    public static let watchdogTimeout = ExceptionCode(rawValue: 0x8bad_f00d)

    /// `0xbada5e47`: the app held more background task assertions than allowed (S1, R1.11).
    public static let tooManyAssertions = ExceptionCode(rawValue: 0xbada_5e47)

    /// `0xd00d2bad`: runningboardd's "too many assertions" on newer systems (S11).
    public static let runningBoardTooManyAssertions = ExceptionCode(rawValue: 0xd00d_2bad)

    /// `0xdead10cc`: suspended while holding a file lock or database lock.
    public static let deadlock = ExceptionCode(rawValue: 0xdead_10cc)

    /// The subsystem that reports the code in Apple's crash reports (`Namespace …`).
    public var namespace: String {
        switch self {
        case .tooManyAssertions: return "ASSERTIOND"
        case .runningBoardTooManyAssertions, .deadlock: return "RUNNINGBOARD"
        default: return "FRONTBOARD"
        }
    }

    /// The code in lowercase hexadecimal with its `0x` prefix: `0x8badf00d`.
    public var description: String { "0x" + String(rawValue, radix: 16) }
}
