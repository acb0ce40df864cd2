import BackgroundCore

extension Scenario.Step {
    private static let keys = ["at", "repeat", "jitter", "user", "device", "app", "note"]

    private enum UserName: String, CaseIterable {
        case open
        case home
        case forceQuit
        case lock
        case unlock
    }

    private enum DeviceEventName: String, CaseIterable {
        case plugIn
        case unplug
        case reboot
        case unlock
        case push
        case memoryWarning
        case memoryCritical
        case memoryNormal
    }

    private static let changeKeys = [
        "batteryLevel", "network", "metered", "lowPowerMode", "idle", "backgroundAppRefresh", "bandwidth", "latency",
    ]

    init(json: JSONValue, at path: ScenarioPath, context: Scenario.Context) throws(ScenarioError) {
        let object = try ObjectReader(json, at: path, what: "a step", keys: Self.keys)
        let at = try object.required("at") { (value, path) throws(ScenarioError) in
            let at = try At(parsing: Read.string(value, at: path), at: path)
            try Self.check(at, at: path, context: context)
            return at
        }
        let repetition = try object.optional("repeat") { (value, path) throws(ScenarioError) in
            try Repeat(parsing: Read.string(value, at: path), at: path)
        }
        let jitter = try object.optional("jitter", Read.duration)
        if let jitter, let repetition, jitter > repetition.interval {
            throw ScenarioError(
                code: .outOfRange,
                path: path.key("jitter").description,
                message: "the jitter \(ScenarioTime.format(jitter)) is longer than the repeat interval "
                    + "\(repetition), so occurrences could change order"
            )
        }
        let app = try object.optional("app", context.app)
        let event = try Self.readEvent(object, app: app)
        if app != nil, case .device(.change) = event {
            throw object.conflict(
                "app",
                "\"app\" goes with \"user\" \"open\" or \"forceQuit\", or with a device change "
                    + "of only \"backgroundAppRefresh\" (the app's own switch)"
            )
        }
        self.init(
            at: at,
            repeat: repetition,
            jitter: jitter,
            event: event,
            note: try object.optional("note", Read.string)
        )
    }

    private static func check(_ at: At, at path: ScenarioPath, context: Scenario.Context) throws(ScenarioError) {
        let offset = at.offset(from: context.start)
        if offset < .zero, case .clock(_, let time) = at {
            throw ScenarioError(
                code: .outOfRange,
                path: path.description,
                message: "\(quoted(at.description)) falls before the start of the scenario (\(context.start)); "
                    + "write \(quoted("day 2 \(time)")) for the next day"
            )
        }
        guard offset < context.duration else {
            throw ScenarioError(
                code: .outOfRange,
                path: path.description,
                message:
                    "\(quoted(at.description)) falls at +\(ScenarioTime.format(offset)), not before the end of the "
                    + "scenario (+\(ScenarioTime.format(context.duration)))"
            )
        }
    }

    private static func readEvent(_ object: ObjectReader, app: String?) throws(ScenarioError) -> Event {
        switch (object.has("user"), object.has("device")) {
        case (false, false):
            throw ScenarioError(
                code: .missingKey,
                path: object.path.description,
                message: "a step needs \"user\" or \"device\""
            )
        case (true, true):
            throw object.conflict("device", "a step has either \"user\" or \"device\", not both; write two steps")
        case (true, false):
            let name: UserName = try object.required("user") { (value, path) throws(ScenarioError) in
                try Read.choice(value, at: path, what: "a user action")
            }
            switch (name, app) {
            case (.open, let app?): return .user(.open(app: app))
            case (.forceQuit, let app?): return .user(.forceQuit(app: app))
            case (.open, nil), (.forceQuit, nil):
                throw ScenarioError(
                    code: .missingKey,
                    path: object.path.key("app").description,
                    message: "\"user\": \"\(name.rawValue)\" needs \"app\", the id of the app"
                )
            case (_, .some):
                throw object.conflict(
                    "app",
                    "\"user\": \"\(name.rawValue)\" does not concern one app; leave \"app\" out"
                )
            case (.home, nil): return .user(.home)
            case (.lock, nil): return .user(.lock)
            case (.unlock, nil): return .user(.unlock)
            }
        case (false, true):
            return .device(
                try object.required("device") { (value, path) throws(ScenarioError) in
                    try readDeviceEvent(value, at: path, app: app, object: object)
                }
            )
        }
    }

    private static func readDeviceEvent(
        _ value: JSONValue,
        at path: ScenarioPath,
        app: String?,
        object: ObjectReader
    ) throws(ScenarioError) -> DeviceEvent {
        if case .string = value {
            let name: DeviceEventName = try Read.choice(value, at: path, what: "a device event")
            if name != .push, app != nil {
                throw object.conflict("app", "\"device\": \"\(name.rawValue)\" does not concern one app")
            }
            switch (name, app) {
            case (.plugIn, _): return .plugIn
            case (.unplug, _): return .unplug
            case (.reboot, _): return .reboot
            case (.unlock, _): return .unlock
            case (.push, let app?): return .push(app: app)
            case (.memoryWarning, _): return .memory(.warning)
            case (.memoryCritical, _): return .memory(.critical)
            case (.memoryNormal, _): return .memory(.normal)
            case (.push, nil):
                throw ScenarioError(
                    code: .missingKey,
                    path: object.path.key("app").description,
                    message: "\"device\": \"push\" needs \"app\", the id of the app the push is for"
                )
            }
        }
        guard case .object = value else {
            throw Read.wrongType(
                value,
                at: path,
                expected: "a device event (\"plugIn\", \"unplug\", \"reboot\", "
                    + "\"unlock\") or an object of changes"
            )
        }
        let change = try ObjectReader(value, at: path, what: "a device change", keys: changeKeys)
        guard changeKeys.contains(where: change.has) else {
            throw ScenarioError(
                code: .invalidValue,
                path: path.description,
                message: "a device change needs at least one of "
                    + changeKeys.map { quoted($0) }.joined(separator: ", ")
            )
        }
        let result = DeviceChange(
            batteryLevel: try change.optional("batteryLevel", Read.fraction),
            network: try change.optional("network") { (value, path) throws(ScenarioError) in
                try Read.choice(value, at: path, what: "a network")
            },
            metered: try change.optional("metered", Read.bool),
            lowPowerMode: try change.optional("lowPowerMode", Read.bool),
            idle: try change.optional("idle", Read.bool),
            backgroundAppRefresh: try change.optional("backgroundAppRefresh", Read.bool),
            bandwidth: try change.optional("bandwidth", Read.bandwidth),
            latency: try change.optional("latency", Read.duration)
        )
        if let app, let enabled = result.backgroundAppRefresh,
            result == DeviceChange(backgroundAppRefresh: enabled)
        {
            return .appBackgroundAppRefresh(app: app, enabled: enabled)
        }
        return .change(result)
    }

    /// The step in the format's JSON form.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["at": .string(at.description)]
        if let `repeat` { members["repeat"] = .string(`repeat`.description) }
        if let jitter { members["jitter"] = .string(ScenarioTime.format(jitter)) }
        if let note { members["note"] = .string(note) }
        if let app { members["app"] = .string(app) }
        switch event {
        case .user(let action):
            switch action {
            case .open: members["user"] = "open"
            case .home: members["user"] = "home"
            case .forceQuit: members["user"] = "forceQuit"
            case .lock: members["user"] = "lock"
            case .unlock: members["user"] = "unlock"
            }
        case .device(let event):
            members["device"] = Self.jsonValue(of: event)
        }
        return .object(members)
    }

    private static func jsonValue(of event: DeviceEvent) -> JSONValue {
        switch event {
        case .plugIn: return "plugIn"
        case .unplug: return "unplug"
        case .reboot: return "reboot"
        case .unlock: return "unlock"
        case .appBackgroundAppRefresh(_, let enabled): return ["backgroundAppRefresh": .bool(enabled)]
        case .push: return "push"
        case .memory(.warning): return "memoryWarning"
        case .memory(.critical): return "memoryCritical"
        case .memory(.normal): return "memoryNormal"
        case .change(let change):
            var members: [String: JSONValue] = [:]
            if let batteryLevel = change.batteryLevel { members["batteryLevel"] = .double(batteryLevel) }
            if let network = change.network { members["network"] = .string(network.rawValue) }
            if let metered = change.metered { members["metered"] = .bool(metered) }
            if let lowPowerMode = change.lowPowerMode { members["lowPowerMode"] = .bool(lowPowerMode) }
            if let idle = change.idle { members["idle"] = .bool(idle) }
            if let enabled = change.backgroundAppRefresh { members["backgroundAppRefresh"] = .bool(enabled) }
            if let bandwidth = change.bandwidth { members["bandwidth"] = .integer(Int128(bandwidth)) }
            if let latency = change.latency { members["latency"] = .string(ScenarioTime.format(latency)) }
            return .object(members)
        }
    }
}
