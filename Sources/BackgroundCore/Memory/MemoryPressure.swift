/// How short of memory the machine is: the input of memory reclaim (jetsam, issue 11 §4).
///
/// On a device iOS ends suspended apps when memory runs short, least recently used first, and
/// never a foreground app while a background one can go. On Linux the level comes from the
/// kernel's pressure stall information (`memory.pressure` of the cgroup, else
/// `/proc/pressure/memory`) and the available memory, through ``MemoryPolicy/level(someAverage10:fullAverage10:availableFraction:)``.
public enum MemoryPressure: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Enough memory: nothing is reclaimed.
    case normal
    /// Memory runs short: suspended apps are ended (one per report, least recently used first),
    /// then background apps holding assertions get their expiration handlers early.
    case warning
    /// Memory is about to run out: as ``warning``, and when nothing suspended is left and the
    /// expiration handlers have had their time, background apps are ended too. Never the
    /// foreground app.
    case critical

    private var rank: Int {
        switch self {
        case .normal: 0
        case .warning: 1
        case .critical: 2
        }
    }

    public static func < (lhs: MemoryPressure, rhs: MemoryPressure) -> Bool { lhs.rank < rhs.rank }
}

/// The thresholds of memory reclaim. Part of ``SystemPolicy``.
///
/// Apple publishes no numbers for jetsam; every value here is **ours**, chosen from the
/// kernel's PSI documentation (`Documentation/accounting/psi.rst`: `some` is the share of time at
/// least one task stalled on memory, `full` the share all non-idle tasks did).
public struct MemoryPolicy: Sendable, Hashable, Codable {
    /// `some avg10` at or above this percentage is ``MemoryPressure/warning`` (**ours**: 10 %).
    public var warningSomeAverage10 = 10.0
    /// `full avg10` at or above this percentage is ``MemoryPressure/critical`` (**ours**: 5 %).
    public var criticalFullAverage10 = 5.0
    /// Available memory at or below this share of the total is ``MemoryPressure/warning``
    /// (**ours**: 10 %).
    public var warningAvailableFraction = 0.10
    /// Available memory at or below this share of the total is ``MemoryPressure/critical``
    /// (**ours**: 3 %).
    public var criticalAvailableFraction = 0.03

    /// Creates the default thresholds.
    public init() {}

    /// The pressure level for the kernel's readings; a missing reading never raises the level.
    ///
    /// ```swift
    /// MemoryPolicy().level(someAverage10: 12, fullAverage10: 0.5, availableFraction: 0.4)   // .warning
    /// MemoryPolicy().level(someAverage10: nil, fullAverage10: nil, availableFraction: 0.02) // .critical
    /// ```
    public func level(someAverage10: Double?, fullAverage10: Double?, availableFraction: Double?) -> MemoryPressure {
        if let full = fullAverage10, full >= criticalFullAverage10 { return .critical }
        if let available = availableFraction, available <= criticalAvailableFraction { return .critical }
        if let some = someAverage10, some >= warningSomeAverage10 { return .warning }
        if let available = availableFraction, available <= warningAvailableFraction { return .warning }
        return .normal
    }
}
