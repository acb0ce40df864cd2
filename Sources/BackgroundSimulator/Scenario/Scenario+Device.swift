extension Scenario {
    /// The state of the device at T+0. Every field is optional in the file.
    ///
    /// ```json
    /// "device": {"batteryLevel": 0.5, "network": "cellular", "locked": false}
    /// ```
    public struct Device: Sendable, Hashable {
        /// Where power comes from.
        public enum Power: String, Sendable, Hashable, CaseIterable {
            /// `"battery"`: running on battery.
            case battery
            /// `"external"`: plugged in.
            case external
        }

        /// The network the device is on.
        public enum Network: String, Sendable, Hashable, CaseIterable {
            /// `"wifi"`: Wi-Fi, unmetered unless marked metered.
            case wifi
            /// `"cellular"`: cellular, metered unless marked unmetered.
            case cellular
            /// `"none"`: no network. (Named `offline` so it never reads as `Optional.none`.)
            case offline = "none"
        }

        /// `batteryLevel`: the charge from 0 to 1. Default 0.8.
        public var batteryLevel: Double
        /// `power`: battery or external power. Default battery.
        public var power: Power
        /// `network`: Wi-Fi, cellular or none. Default Wi-Fi.
        public var network: Network
        /// `metered`: whether the network is metered, when given; nil means "cellular is metered,
        /// Wi-Fi is not". See ``isMetered``.
        public var metered: Bool?
        /// `lowPowerMode`: whether Low Power Mode is on. Default false.
        public var lowPowerMode: Bool
        /// `locked`: whether the screen is off and locked at T+0. Default true. The device has
        /// been unlocked since it booted either way; `"device": "reboot"` changes that.
        public var locked: Bool
        /// `idle`: whether the user is away (what processing tasks wait for). Default false.
        public var idle: Bool
        /// `backgroundAppRefresh`: the system-wide Background App Refresh switch. Default true.
        public var backgroundAppRefresh: Bool
        /// `bandwidth`: bytes per second the network carries for background transfers, shared
        /// by those running. Default 1000000 (``VirtualNetwork``).
        public var bandwidth: Int64?
        /// `latency`: from a transfer's request to its first byte. Default `50ms`.
        public var latency: Duration?

        /// Creates a device; the defaults are those of the format.
        public init(
            batteryLevel: Double = 0.8,
            power: Power = .battery,
            network: Network = .wifi,
            metered: Bool? = nil,
            lowPowerMode: Bool = false,
            locked: Bool = true,
            idle: Bool = false,
            backgroundAppRefresh: Bool = true,
            bandwidth: Int64? = nil,
            latency: Duration? = nil
        ) {
            self.bandwidth = bandwidth
            self.latency = latency
            self.batteryLevel = batteryLevel
            self.power = power
            self.network = network
            self.metered = metered
            self.lowPowerMode = lowPowerMode
            self.locked = locked
            self.idle = idle
            self.backgroundAppRefresh = backgroundAppRefresh
        }

        /// Whether the network is metered: ``metered`` when given, else whether it is cellular.
        public var isMetered: Bool { metered ?? (network == .cellular) }

        private static let keys = [
            "batteryLevel", "power", "network", "metered", "lowPowerMode", "locked", "idle", "backgroundAppRefresh",
            "bandwidth", "latency",
        ]

        init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
            let object = try ObjectReader(json, at: path, what: "a device", keys: Self.keys)
            let defaults = Device()
            self.init(
                batteryLevel: try object.optional("batteryLevel", Read.fraction) ?? defaults.batteryLevel,
                power: try object.optional("power") { (value, path) throws(ScenarioError) in
                    try Read.choice(value, at: path, what: "a power source")
                } ?? defaults.power,
                network: try object.optional("network") { (value, path) throws(ScenarioError) in
                    try Read.choice(value, at: path, what: "a network")
                } ?? defaults.network,
                metered: try object.optional("metered", Read.bool),
                lowPowerMode: try object.optional("lowPowerMode", Read.bool) ?? defaults.lowPowerMode,
                locked: try object.optional("locked", Read.bool) ?? defaults.locked,
                idle: try object.optional("idle", Read.bool) ?? defaults.idle,
                backgroundAppRefresh: try object.optional("backgroundAppRefresh", Read.bool)
                    ?? defaults.backgroundAppRefresh,
                bandwidth: try object.optional("bandwidth", Read.bandwidth),
                latency: try object.optional("latency", Read.duration)
            )
        }

        /// The device in the format's JSON form, defaults left out.
        public var jsonValue: JSONValue {
            let defaults = Device()
            var members: [String: JSONValue] = [:]
            if batteryLevel != defaults.batteryLevel { members["batteryLevel"] = .double(batteryLevel) }
            if power != defaults.power { members["power"] = .string(power.rawValue) }
            if network != defaults.network { members["network"] = .string(network.rawValue) }
            if let metered { members["metered"] = .bool(metered) }
            if lowPowerMode != defaults.lowPowerMode { members["lowPowerMode"] = .bool(lowPowerMode) }
            if locked != defaults.locked { members["locked"] = .bool(locked) }
            if idle != defaults.idle { members["idle"] = .bool(idle) }
            if backgroundAppRefresh != defaults.backgroundAppRefresh {
                members["backgroundAppRefresh"] = .bool(backgroundAppRefresh)
            }
            if let bandwidth { members["bandwidth"] = .integer(Int128(bandwidth)) }
            if let latency { members["latency"] = .string(ScenarioTime.format(latency)) }
            return .object(members)
        }
    }
}

extension Scenario.Device: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}

extension Read {
    /// A bandwidth: a whole number of bytes per second, from 1 to 100 GB/s.
    static func bandwidth(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> Int64 {
        guard case .integer(let number) = value else {
            throw wrongType(value, at: path, expected: "a whole number of bytes per second")
        }
        guard number >= 1, number <= 100_000_000_000 else {
            throw ScenarioError(
                code: .outOfRange,
                path: path.description,
                message: "\(number) bytes per second is not between 1 and 100000000000"
            )
        }
        return Int64(number)
    }
}
