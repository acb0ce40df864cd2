import BackgroundCore

extension Scenario.Action {
    init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
        let object = try ObjectReader(json, at: path, what: "an action", keys: Self.names)
        let present = Self.names.filter(object.has)
        guard present.count == 1, let name = present.first else {
            let listed = Self.names.map { quoted($0) }.joined(separator: ", ")
            throw ScenarioError(
                code: present.isEmpty ? .invalidValue : .conflict,
                path: path.description,
                message: present.isEmpty
                    ? "an action is an object with exactly one key: \(listed)"
                    : "an action has exactly one key, found " + present.map { quoted($0) }.joined(separator: " and ")
                        + "; write them as separate actions"
            )
        }
        switch name {
        case "register": self = .register(try object.required(name, Read.identifier))
        case "cancel": self = .cancel(try object.required(name, Read.identifier))
        case "cancelAll":
            guard try object.required(name, Read.bool) else {
                throw object.conflict(name, "\"cancelAll\" takes true; leave the action out instead of false")
            }
            self = .cancelAll
        case "submit": self = .submit(try object.required(name, Submission.init(json:at:)))
        case "beginBackgroundTask":
            self = .beginBackgroundTask(try object.required(name, BackgroundTask.init(json:at:)))
        case "beginActivity": self = .beginActivity(try object.required(name, Activity.init(json:at:)))
        case "download": self = .download(try object.required(name, Transfer.init(json:at:)))
        case "upload": self = .upload(try object.required(name, Transfer.init(json:at:)))
        default: self = .setMinimumBackgroundFetchInterval(try object.required(name, FetchInterval.init(json:at:)))
        }
    }

    /// The action in the format's JSON form: an object with one key.
    public var jsonValue: JSONValue {
        switch self {
        case .register(let identifier): return ["register": .string(identifier)]
        case .submit(let submission): return ["submit": submission.jsonValue]
        case .cancel(let identifier): return ["cancel": .string(identifier)]
        case .cancelAll: return ["cancelAll": true]
        case .beginBackgroundTask(let task): return ["beginBackgroundTask": task.jsonValue]
        case .setMinimumBackgroundFetchInterval(let interval):
            return ["setMinimumBackgroundFetchInterval": interval.jsonValue]
        case .beginActivity(let activity):
            var members: [String: JSONValue] = ["mode": .string(activity.mode.rawValue)]
            if let duration = activity.duration { members["for"] = .string(ScenarioTime.format(duration)) }
            return ["beginActivity": .object(members)]
        case .download(let transfer): return ["download": transfer.jsonValue]
        case .upload(let transfer): return ["upload": transfer.jsonValue]
        }
    }

    /// Reads a list of actions such as `onLaunch`.
    static func list(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> [Scenario.Action] {
        try Read.list(value, at: path, limit: maximumCount, Scenario.Action.init(json:at:))
    }
}

extension Scenario.Action.Submission {
    private enum KindName: String, CaseIterable {
        case refresh
        case processing
    }

    private static let keys = ["identifier", "kind", "earliestBegin", "requiresNetwork", "requiresExternalPower"]

    init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
        let object = try ObjectReader(json, at: path, what: "a submission", keys: Self.keys)
        let identifier = try object.required("identifier", Read.identifier)
        let kindName: KindName = try object.required("kind") { (value, path) throws(ScenarioError) in
            try Read.choice(value, at: path, what: "a request kind")
        }
        let earliestBegin = try object.optional("earliestBegin", Read.duration)
        let requiresNetwork = try object.optional("requiresNetwork", Read.bool)
        let requiresExternalPower = try object.optional("requiresExternalPower", Read.bool)
        switch kindName {
        case .refresh:
            for key in ["requiresNetwork", "requiresExternalPower"] where object.has(key) {
                throw object.conflict(key, "\(quoted(key)) applies only to \"processing\" requests")
            }
            self.init(identifier: identifier, kind: .refresh, earliestBegin: earliestBegin)
        case .processing:
            let kind = Kind.processing(
                requiresNetwork: requiresNetwork ?? false,
                requiresExternalPower: requiresExternalPower ?? false
            )
            self.init(identifier: identifier, kind: kind, earliestBegin: earliestBegin)
        }
    }

    /// The submission in the format's JSON form, defaults left out.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["identifier": .string(identifier)]
        switch kind {
        case .refresh:
            members["kind"] = "refresh"
        case .processing(let requiresNetwork, let requiresExternalPower):
            members["kind"] = "processing"
            if requiresNetwork { members["requiresNetwork"] = true }
            if requiresExternalPower { members["requiresExternalPower"] = true }
        }
        if let earliestBegin { members["earliestBegin"] = .string(ScenarioTime.format(earliestBegin)) }
        return .object(members)
    }
}

extension Scenario.Action.BackgroundTask {
    init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
        let object = try ObjectReader(
            json,
            at: path,
            what: "a background task",
            keys: ["name", "work", "onExpiration", "leak"]
        )
        let name = try object.optional("name", Read.text)
        let work = try object.optional("work", Read.duration)
        let leak = try object.optional("leak", Read.bool) ?? false
        let onExpiration: ExpirationHandler =
            try object.optional("onExpiration") { (value, path) throws(ScenarioError) in
                try Read.choice(value, at: path, what: "an expiration behaviour")
            } ?? .end
        if leak, work != nil {
            throw object.conflict("work", "\"work\" has no effect when \"leak\" is true: a leaked task is never ended")
        }
        self.init(name: name, end: leak ? .never : .after(work ?? .zero), onExpiration: onExpiration)
    }

    /// The background task in the format's JSON form, defaults left out.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        if let name { members["name"] = .string(name) }
        switch end {
        case .after(let work): if work != .zero { members["work"] = .string(ScenarioTime.format(work)) }
        case .never: members["leak"] = true
        }
        if onExpiration != .end { members["onExpiration"] = .string(onExpiration.rawValue) }
        return .object(members)
    }
}

extension Scenario.Action.FetchInterval {
    init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
        let expected = "\"minimum\", \"never\" or a duration such as \"30m\""
        guard case .string(let text) = json else { throw Read.wrongType(json, at: path, expected: expected) }
        switch text {
        case "minimum": self = .minimum
        case "never": self = .never
        default:
            guard let first = text.unicodeScalars.first, ("0"..."9").contains(first) else {
                let suggestion = closestMatch(to: text, among: ["minimum", "never"])
                throw ScenarioError(
                    code: .invalidValue,
                    path: path.description,
                    message: "\(quoted(text)) is not a fetch interval; expected \(expected)"
                        + (suggestion.map { "; did you mean \(quoted($0))?" } ?? ""),
                    suggestion: suggestion
                )
            }
            self = .interval(try ScenarioTime.parseDuration(text, at: path))
        }
    }

    /// `"minimum"`, `"never"` or the interval as a duration.
    public var jsonValue: JSONValue {
        switch self {
        case .minimum: return "minimum"
        case .never: return "never"
        case .interval(let interval): return .string(ScenarioTime.format(interval))
        }
    }
}

extension Scenario.Action.Activity {
    private static let keys = ["mode", "for"]

    init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
        let object = try ObjectReader(json, at: path, what: "an activity", keys: Self.keys)
        let name = try object.required("mode", Read.string)
        let mode = BackgroundMode(rawValue: name)
        guard mode.isActivity else {
            let listed = BackgroundMode.activityModes.map { quoted($0.rawValue) }.joined(separator: ", ")
            throw ScenarioError(
                code: .invalidValue,
                path: path.key("mode").description,
                message: "\(quoted(name)) is not a mode an activity can hold; one of \(listed)"
            )
        }
        self.init(mode: mode, duration: try object.optional("for", Read.duration))
    }
}
