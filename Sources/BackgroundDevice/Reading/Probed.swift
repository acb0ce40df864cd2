/// What a probe found: a value and what it was read from, or why there was nothing to read.
public enum Probed<Value: Sendable & Hashable>: Sendable, Hashable {
    /// A value read from the machine; `from` says what was read ("AC online", "eth0 up").
    case read(Value, from: String)
    /// Nothing to read; `reason` says why ("no power supply found"). The reading then uses the
    /// documented default for the condition.
    case unavailable(reason: String)

    /// The value, if one was read.
    public var value: Value? {
        if case .read(let value, _) = self { return value }
        return nil
    }

    /// Why nothing was read, if nothing was.
    public var reason: String? {
        if case .unavailable(let reason) = self { return reason }
        return nil
    }
}

/// Where a condition's value came from, as `bgctl status` shows it.
public enum ConditionSource: Sendable, Hashable, CustomStringConvertible {
    /// Read from the machine; the text says what was read.
    case probe(String)
    /// The documented default, because the probe had nothing to read; the text says why.
    case defaulted(reason: String)
    /// Set by the developer (`bgctl device set`).
    case override

    /// `probe: AC online`, `default: no power supply found`, `override`.
    public var description: String {
        switch self {
        case .probe(let what): return "probe: \(what)"
        case .defaulted(let reason): return "default: \(reason)"
        case .override: return "override"
        }
    }

    /// `probe`, `default` or `override`, for `--json`.
    public var kind: String {
        switch self {
        case .probe: return "probe"
        case .defaulted: return "default"
        case .override: return "override"
        }
    }
}

/// A condition's value with its source.
public struct Sourced<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The value the scheduler sees.
    public var value: Value
    /// Where it came from.
    public var source: ConditionSource

    /// A value and its source.
    public init(_ value: Value, _ source: ConditionSource) {
        self.value = value
        self.source = source
    }

    /// The probe's value, or `fallback` with the probe's reason as a default.
    public init(_ probed: Probed<Value>, default fallback: Value) {
        switch probed {
        case .read(let value, let from): self.init(value, .probe(from))
        case .unavailable(let reason): self.init(fallback, .defaulted(reason: reason))
        }
    }
}
