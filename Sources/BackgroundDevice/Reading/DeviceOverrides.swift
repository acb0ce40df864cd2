public import BackgroundCore

/// Values the developer sets in place of the probes (`bgctl device set power=battery
/// battery=15 network=none`). A condition with an override reads as source `override`.
public struct DeviceOverrides: Sendable, Hashable, CustomStringConvertible {
    /// The conditions that can be overridden, in the order they are written.
    public enum Key: String, Sendable, Hashable, CaseIterable {
        case power
        case battery
        case network
        case metered
        case constrained
        case lowPower = "low-power"
        case idle
        case unlocked

        /// The values the key accepts, as an error lists them.
        public var validValues: String {
            switch self {
            case .power: return "battery, external"
            case .battery: return "an integer percentage 0...100 (15 or 15%)"
            case .network: return "none, wifi, cellular"
            case .lowPower: return "on, off"
            case .idle, .unlocked, .metered, .constrained: return "yes, no"
            }
        }
    }

    /// Power source.
    public var power: DeviceConditions.PowerSource?
    /// Battery level in percent, 0...100.
    public var batteryPercent: Int?
    /// Network.
    public var network: DeviceConditions.Network?
    /// Metered network (expensive: a hotspot, cellular).
    public var metered: Bool?
    /// Constrained network (Low Data Mode).
    public var constrained: Bool?
    /// Low Power Mode.
    public var lowPowerMode: Bool?
    /// User idle.
    public var isIdle: Bool?
    /// Unlocked since boot.
    public var unlockedSinceBoot: Bool?

    /// No override: every condition from its probe.
    public static let none = DeviceOverrides()

    /// Overrides with the given values (`nil`: from the probe).
    public init(
        power: DeviceConditions.PowerSource? = nil,
        batteryPercent: Int? = nil,
        network: DeviceConditions.Network? = nil,
        metered: Bool? = nil,
        constrained: Bool? = nil,
        lowPowerMode: Bool? = nil,
        isIdle: Bool? = nil,
        unlockedSinceBoot: Bool? = nil
    ) {
        self.power = power
        self.batteryPercent = batteryPercent
        self.network = network
        self.metered = metered
        self.constrained = constrained
        self.lowPowerMode = lowPowerMode
        self.isIdle = isIdle
        self.unlockedSinceBoot = unlockedSinceBoot
    }

    /// Whether nothing is overridden.
    public var isEmpty: Bool { self == .none }

    /// These overrides with `assignments` applied: `key=value` sets, `key=probe` clears.
    ///
    /// Each argument is one `key=value`; an argument holding several separated by spaces (a
    /// quoted `"power=battery battery=15"`) is split. Strict: an unknown key, a value the key
    /// does not take, a missing `=` or the same key twice is a ``DeviceOverrideError`` that
    /// lists what is valid, and nothing is applied.
    public func applying(_ arguments: [String]) throws(DeviceOverrideError) -> DeviceOverrides {
        var result = self
        var seen: [Key] = []
        let tokens = arguments.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }) }
        guard !tokens.isEmpty else { throw .empty }
        for token in tokens {
            guard let equals = token.firstIndex(of: "=") else { throw .missingEquals(String(token)) }
            let name = String(token[..<equals])
            let value = String(token[token.index(after: equals)...])
            guard let key = Key(rawValue: name == "lowpower" ? Key.lowPower.rawValue : name) else {
                throw .unknownKey(name)
            }
            guard !seen.contains(key) else { throw .duplicateKey(name) }
            seen.append(key)
            try result.set(key, value)
        }
        return result
    }

    /// Parses `power=battery battery=15 network=none` from nothing overridden.
    public init(parsing text: String) throws(DeviceOverrideError) {
        self = try DeviceOverrides.none.applying([text])
    }

    private mutating func set(_ key: Key, _ value: String) throws(DeviceOverrideError) {
        let clear = value == "probe"
        func invalid() -> DeviceOverrideError { .invalidValue(key: key, value: value) }
        switch key {
        case .power:
            power = clear ? nil : try Self.choice(value, ["battery": .battery, "external": .externalPower], invalid())
        case .battery:
            batteryPercent = clear ? nil : try Self.percent(value, invalid())
        case .network:
            network =
                clear
                ? nil
                : try Self.choice(
                    value,
                    ["none": DeviceConditions.Network.none, "wifi": .wifi, "cellular": .cellular],
                    invalid()
                )
        case .metered:
            metered = clear ? nil : try Self.choice(value, ["yes": true, "no": false], invalid())
        case .constrained:
            constrained = clear ? nil : try Self.choice(value, ["yes": true, "no": false], invalid())
        case .lowPower:
            lowPowerMode = clear ? nil : try Self.choice(value, ["on": true, "off": false], invalid())
        case .idle:
            isIdle = clear ? nil : try Self.choice(value, ["yes": true, "no": false], invalid())
        case .unlocked:
            unlockedSinceBoot = clear ? nil : try Self.choice(value, ["yes": true, "no": false], invalid())
        }
    }

    private static func choice<Value>(
        _ text: String,
        _ values: [String: Value],
        _ error: DeviceOverrideError
    ) throws(DeviceOverrideError) -> Value {
        guard let value = values[text] else { throw error }
        return value
    }

    private static func percent(_ text: String, _ error: DeviceOverrideError) throws(DeviceOverrideError) -> Int {
        let digits = text.hasSuffix("%") ? text.dropLast() : Substring(text)
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits),
            value <= 100
        else { throw error }
        return value
    }

    /// The overrides as `bgctl device set` takes them, in ``Key`` order; `""` when none.
    public var description: String {
        var parts: [String] = []
        if let power { parts.append("power=" + (power == .battery ? "battery" : "external")) }
        if let batteryPercent { parts.append("battery=\(batteryPercent)") }
        if let network { parts.append("network=" + network.rawValue) }
        if let metered { parts.append("metered=" + (metered ? "yes" : "no")) }
        if let constrained { parts.append("constrained=" + (constrained ? "yes" : "no")) }
        if let lowPowerMode { parts.append("low-power=" + (lowPowerMode ? "on" : "off")) }
        if let isIdle { parts.append("idle=" + (isIdle ? "yes" : "no")) }
        if let unlockedSinceBoot { parts.append("unlocked=" + (unlockedSinceBoot ? "yes" : "no")) }
        return parts.joined(separator: " ")
    }
}

/// Why `bgctl device set` arguments were refused; each message lists what is valid.
public enum DeviceOverrideError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `key=value` at all.
    case empty
    /// A token without `=`.
    case missingEquals(String)
    /// A key that is not a ``DeviceOverrides/Key``.
    case unknownKey(String)
    /// A key given twice.
    case duplicateKey(String)
    /// A value the key does not take.
    case invalidValue(key: DeviceOverrides.Key, value: String)

    private static var keys: String { DeviceOverrides.Key.allCases.map(\.rawValue).joined(separator: ", ") }

    public var description: String {
        switch self {
        case .empty:
            return "no key=value given (keys: \(Self.keys))"
        case .missingEquals(let token):
            return "'\(token.prefix(60))' is not key=value (keys: \(Self.keys))"
        case .unknownKey(let key):
            return "unknown key '\(key.prefix(60))' (valid: \(Self.keys))"
        case .duplicateKey(let key):
            return "'\(key)' given twice"
        case .invalidValue(let key, let value):
            return "\(key.rawValue)='\(value.prefix(60))' is not valid (valid: \(key.validValues), or probe to clear)"
        }
    }
}
