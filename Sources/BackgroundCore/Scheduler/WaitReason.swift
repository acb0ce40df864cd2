/// A condition that held a request back, as history counts it.
///
/// The device's conditions (power, network, idle, first unlock, critical battery, Low Power
/// Mode, the Background App Refresh switch) come from the device's recorded condition
/// intervals; `earliestBeginDate` from the request itself.
public enum WaitReason: String, Sendable, Hashable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    /// The request's `earliestBeginDate` had not come.
    case earliestBeginDate
    /// The device was not unlocked since it started.
    case firstUnlock
    /// The request needed external power and the device was on battery.
    case externalPower
    /// The request needed a network and there was none.
    case network
    /// Processing runs only while the device is idle, and it was in use.
    case deviceIdle
    /// The battery was critically low and not charging.
    case batteryCriticallyLow
    /// Low Power Mode was on.
    case lowPowerMode
    /// Background App Refresh was off for the system (switch or restriction).
    case backgroundAppRefresh

    public static func < (lhs: WaitReason, rhs: WaitReason) -> Bool { lhs.order < rhs.order }

    private var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// What it waited for, in words: "external power", "a network", …
    public var description: String {
        switch self {
        case .earliestBeginDate: "its earliestBeginDate"
        case .firstUnlock: "the first unlock"
        case .externalPower: "external power"
        case .network: "a network"
        case .deviceIdle: "the device to be idle"
        case .batteryCriticallyLow: "the battery to leave the critical level"
        case .lowPowerMode: "Low Power Mode to end"
        case .backgroundAppRefresh: "Background App Refresh"
        }
    }

    /// The device reasons among unmet gates, in a fixed order.
    static func reasons(in gates: DeviceGates) -> [WaitReason] {
        var reasons: [WaitReason] = []
        if gates.contains(.unlocked) { reasons.append(.firstUnlock) }
        if gates.contains(.externalPower) { reasons.append(.externalPower) }
        if gates.contains(.network) { reasons.append(.network) }
        if gates.contains(.idle) { reasons.append(.deviceIdle) }
        if gates.contains(.batteryNotCritical) { reasons.append(.batteryCriticallyLow) }
        if gates.contains(.notLowPower) { reasons.append(.lowPowerMode) }
        // Low Power Mode turns refresh off too: it is the reason, as eligibility says.
        if gates.contains(.refreshAllowed) && !gates.contains(.notLowPower) { reasons.append(.backgroundAppRefresh) }
        return reasons
    }

    /// The gates of device reasons.
    static func gates(of reasons: [WaitReason]) -> DeviceGates {
        var gates: DeviceGates = []
        for reason in reasons {
            switch reason {
            case .firstUnlock: gates.insert(.unlocked)
            case .externalPower: gates.insert(.externalPower)
            case .network: gates.insert(.network)
            case .deviceIdle: gates.insert(.idle)
            case .batteryCriticallyLow: gates.insert(.batteryNotCritical)
            case .lowPowerMode: gates.insert(.notLowPower)
            case .backgroundAppRefresh: gates.insert(.refreshAllowed)
            case .earliestBeginDate: break
            }
        }
        return gates
    }
}

/// How long one condition held a request back.
///
/// ```swift
/// history.waits.first   // ConditionWait(reason: .externalPower, duration: .seconds(6 * 3600))
/// ```
public struct ConditionWait: Sendable, Hashable, Codable {
    /// What it waited for.
    public var reason: WaitReason
    /// For how long, in total (intervals while the condition was unmet add up; they may overlap
    /// other reasons' intervals).
    public var duration: Duration

    /// Creates a wait.
    public init(reason: WaitReason, duration: Duration) {
        self.reason = reason
        self.duration = duration
    }

    private enum CodingKeys: String, CodingKey {
        case reason, seconds
    }

    /// Encodes `{"reason": "externalPower", "seconds": 21600}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reason, forKey: .reason)
        try container.encode(duration.seconds, forKey: .seconds)
    }

    /// Decodes `{"reason": …, "seconds": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reason = try container.decode(WaitReason.self, forKey: .reason)
        duration = .seconds(fromInterval: try container.decode(Double.self, forKey: .seconds))  // to the nanosecond
    }
}

/// From an instant on (until the next interval's start), which device conditions were unmet.
///
/// Recorded once for the device whenever the set changes, not per request: each request's
/// waits are derived from these intervals when asked.
public struct DeviceConditionInterval: Sendable, Hashable, Codable {
    /// When the interval began.
    public var from: Instant
    /// The device conditions unmet during it, in ``WaitReason`` order (never `earliestBeginDate`).
    public var unmet: [WaitReason]

    /// Creates an interval.
    public init(from: Instant, unmet: [WaitReason]) {
        self.from = from
        self.unmet = unmet.filter { $0 != .earliestBeginDate }.sorted()
    }
}

/// One past run of a request: when, how long, how it ended, and what it had waited for.
public struct RunRecord: Sendable, Hashable, Codable {
    /// The request's identifier.
    public var identifier: String
    /// Its kind.
    public var kind: TaskKind
    /// When the request was submitted.
    public var submittedAt: Instant
    /// When the run started.
    public var startedAt: Instant
    /// When it ended.
    public var endedAt: Instant
    /// How it ended.
    public var outcome: TaskOutcome
    /// What held the request back between submission and start, longest first.
    public var waits: [ConditionWait]

    /// How long the run lasted.
    public var duration: Duration { endedAt - startedAt }
    /// How long the request waited.
    public var waited: Duration { startedAt - submittedAt }

    /// Creates a record.
    public init(
        identifier: String,
        kind: TaskKind,
        submittedAt: Instant,
        startedAt: Instant,
        endedAt: Instant,
        outcome: TaskOutcome,
        waits: [ConditionWait]
    ) {
        self.identifier = identifier
        self.kind = kind
        self.submittedAt = submittedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.waits = waits
    }
}
