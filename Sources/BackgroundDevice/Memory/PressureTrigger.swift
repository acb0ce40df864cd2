/// A PSI trigger (`Documentation/accounting/psi.rst`): wake when tasks stalled on memory for
/// more than `stall` within any `window`.
public struct PressureTrigger: Sendable, Hashable, CustomStringConvertible {
    /// Which line the trigger watches.
    public enum Kind: String, Sendable, Hashable {
        /// At least one task stalled.
        case some
        /// All non-idle tasks stalled at once.
        case full
    }

    /// `some` or `full`.
    public let kind: Kind
    /// Stall time that fires the trigger, in microseconds.
    public let stallMicroseconds: UInt32
    /// The window, in microseconds: 500 ms to 10 s.
    public let windowMicroseconds: UInt32

    /// The default: `some 150000 2000000`, 150 ms of stall within 2 s. psi.rst's example uses a
    /// 1 s window; without `CAP_SYS_RESOURCE` the kernel refuses any window that is not a
    /// multiple of 2 s (`EINVAL`), which is the case on this project's machines even as root, so
    /// the default uses 2 s.
    public static let `default` = PressureTrigger(unchecked: .some, stall: 150_000, window: 2_000_000)

    /// A trigger within the kernel's limits.
    /// - Throws: ``DeviceError/malformed(path:reason:)`` naming `trigger` when the window is
    ///   outside 500 ms…10 s or the stall is zero or longer than the window.
    public init(_ kind: Kind, stallMicroseconds: UInt32, windowMicroseconds: UInt32) throws(DeviceError) {
        guard (500_000...10_000_000).contains(windowMicroseconds) else {
            throw .malformed(path: "trigger", reason: "window \(windowMicroseconds) µs is outside 500000…10000000")
        }
        guard (1...windowMicroseconds).contains(stallMicroseconds) else {
            throw .malformed(
                path: "trigger",
                reason: "stall \(stallMicroseconds) µs is not within 1…\(windowMicroseconds)"
            )
        }
        self.init(unchecked: kind, stall: stallMicroseconds, window: windowMicroseconds)
    }

    private init(unchecked kind: Kind, stall: UInt32, window: UInt32) {
        self.kind = kind
        stallMicroseconds = stall
        windowMicroseconds = window
    }

    /// `some 150000 2000000`.
    public var description: String { "\(kind.rawValue) \(stallMicroseconds) \(windowMicroseconds)" }

    /// What is written to the pressure file: the text and its terminating NUL. The kernel
    /// overwrites the last byte written with NUL, so without it the window loses a digit.
    var bytes: [UInt8] { Array(description.utf8) + [0] }
}
