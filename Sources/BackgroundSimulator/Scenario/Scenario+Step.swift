public import BackgroundCore

extension Scenario {
    /// An entry of the timeline: something the user or the device does, when, and how often.
    ///
    /// ```json
    /// {"at": "07:30", "repeat": "daily", "jitter": "10m", "user": "open", "app": "com.example.news"}
    /// {"at": "+6h", "device": {"batteryLevel": 0.15, "lowPowerMode": true}, "note": "battery runs low"}
    /// ```
    public struct Step: Sendable, Hashable {
        /// `at`: when the step first happens. Required.
        public var at: At
        /// `repeat`: how it repeats until the end of the scenario; nil (absent) for once.
        public var `repeat`: Repeat?
        /// `jitter`: each occurrence happens later by a uniform random offset in `[0, jitter)`,
        /// drawn by the engine from the scenario's seed; nil (absent) for none. At most the
        /// repeat interval.
        public var jitter: Duration?
        /// `user` or `device` (with `app` where it applies): what happens.
        public var event: Event
        /// `note`: free text shown in the log next to the step.
        public var note: String?

        /// What a step does: exactly one of `user` and `device`.
        public enum Event: Sendable, Hashable {
            /// `"user": …`: the user does something.
            case user(UserAction)
            /// `"device": …`: the device changes.
            case device(DeviceEvent)
        }

        /// What the user does (`"user"`).
        public enum UserAction: Sendable, Hashable {
            /// `"open"` with `"app"`: opens the app (launching it if needed); it becomes active.
            case open(app: String)
            /// `"home"`: goes to the home screen; the active app moves to the background.
            case home
            /// `"forceQuit"` with `"app"`: removes the app from the app switcher.
            case forceQuit(app: String)
            /// `"lock"`: locks the device; the screen goes off.
            case lock
            /// `"unlock"`: unlocks the device.
            case unlock
        }

        /// What the device does (`"device"`): an event written as a string, or a change of
        /// conditions written as an object.
        public enum DeviceEvent: Sendable, Hashable {
            /// `"plugIn"`: external power is connected.
            case plugIn
            /// `"unplug"`: external power is disconnected.
            case unplug
            /// `"reboot"`: the device restarts; every process ends, and nothing runs in the
            /// background until the first unlock.
            case reboot
            /// `"unlock"`: the first unlock after a reboot.
            case unlock
            /// `{"batteryLevel": …, "network": …, …}`: conditions change.
            case change(DeviceChange)
            /// `{"backgroundAppRefresh": …}` with `"app"`: the app's own switch changes.
            case appBackgroundAppRefresh(app: String, enabled: Bool)
            /// `"device": "push"` with `"app"`: a silent push arrives for the app
            /// (`{"aps":{"content-available":1}}`).
            case push(app: String)
            /// `"memoryWarning"`, `"memoryCritical"`, `"memoryNormal"`: the device reports memory
            /// pressure (one reclaim step each time, as iOS's jetsam; docs/background-modes.md).
            case memory(MemoryPressure)
        }

        /// A change of device conditions; nil fields are unchanged, and at least one is set.
        ///
        /// When ``network`` changes and ``metered`` is nil, the network is metered exactly when
        /// it is cellular (as at T+0).
        public struct DeviceChange: Sendable, Hashable {
            /// `batteryLevel`: the new charge, 0 to 1.
            public var batteryLevel: Double?
            /// `network`: the new network.
            public var network: Device.Network?
            /// `metered`: whether the network is metered.
            public var metered: Bool?
            /// `lowPowerMode`: Low Power Mode on or off.
            public var lowPowerMode: Bool?
            /// `idle`: whether the user is away.
            public var idle: Bool?
            /// `backgroundAppRefresh`: the system-wide Background App Refresh switch.
            public var backgroundAppRefresh: Bool?
            /// `bandwidth`: the network's bytes per second for background transfers.
            public var bandwidth: Int64?
            /// `latency`: from a transfer's request to its first byte.
            public var latency: Duration?

            /// Creates a change.
            public init(
                batteryLevel: Double? = nil,
                network: Device.Network? = nil,
                metered: Bool? = nil,
                lowPowerMode: Bool? = nil,
                idle: Bool? = nil,
                backgroundAppRefresh: Bool? = nil,
                bandwidth: Int64? = nil,
                latency: Duration? = nil
            ) {
                self.bandwidth = bandwidth
                self.latency = latency
                self.batteryLevel = batteryLevel
                self.network = network
                self.metered = metered
                self.lowPowerMode = lowPowerMode
                self.idle = idle
                self.backgroundAppRefresh = backgroundAppRefresh
            }
        }

        /// Creates a step.
        ///
        /// ```swift
        /// Scenario.Step(at: .clock(day: 1, time: .init(hour: 7, minute: 30)), repeat: .daily,
        ///               event: .user(.open(app: "com.example.news")))
        /// ```
        public init(at: At, repeat: Repeat? = nil, jitter: Duration? = nil, event: Event, note: String? = nil) {
            self.at = at
            self.repeat = `repeat`
            self.jitter = jitter
            self.event = event
            self.note = note
        }

        /// The app the step concerns, if any.
        public var app: String? {
            switch event {
            case .user(.open(let app)), .user(.forceQuit(let app)), .device(.appBackgroundAppRefresh(let app, _)),
                .device(.push(let app)):
                return app
            default:
                return nil
            }
        }
    }
}

extension Scenario.Step: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}
