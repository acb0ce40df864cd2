extension Scenario.Expectations {
    private static let keys = [
        "violations", "terminations", "tasks", "finalStates", "pending", "lowPowerModeTurnedOn", "minimumBatteryLevel",
    ]

    init(json: JSONValue, at path: ScenarioPath, context: Scenario.Context) throws(ScenarioError) {
        let object = try ObjectReader(json, at: path, what: "expectations", keys: Self.keys)
        self.init(
            violations: try object.optional("violations", ScenarioComparison.count),
            terminations: try object.optional("terminations") { (value, path) throws(ScenarioError) in
                try Read.list(value, at: path, limit: Self.maximumCount) { (value, path) throws(ScenarioError) in
                    try Termination(json: value, at: path, context: context)
                }
            },
            tasks: try object.optional("tasks") { (value, path) throws(ScenarioError) in
                try Self.readTasks(value, at: path, context: context)
            } ?? [],
            finalStates: try object.optional("finalStates") { (value, path) throws(ScenarioError) in
                try Self.readFinalStates(value, at: path, context: context)
            } ?? [:],
            pending: try object.optional("pending") { (value, path) throws(ScenarioError) in
                try Self.readPending(value, at: path, context: context)
            } ?? [],
            lowPowerModeTurnedOn: try object.optional("lowPowerModeTurnedOn", Read.bool),
            minimumBatteryLevel: try object.optional("minimumBatteryLevel", ScenarioComparison.fraction)
        )
    }

    /// The expectations in the format's JSON form, unchecked fields left out.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        if let violations { members["violations"] = violations.jsonValue { .integer(Int128($0)) } }
        if let terminations { members["terminations"] = .array(terminations.map(\.jsonValue)) }
        if !tasks.isEmpty {
            members["tasks"] = .array(
                tasks.map { task in
                    var entry: [String: JSONValue] = ["app": .string(task.app), "identifier": .string(task.identifier)]
                    if task.outcome != .any { entry["outcome"] = .string(task.outcome.rawValue) }
                    if task.count != .atLeast(1) { entry["count"] = task.count.jsonValue { .integer(Int128($0)) } }
                    return .object(entry)
                }
            )
        }
        if !finalStates.isEmpty { members["finalStates"] = .object(finalStates.mapValues { .string($0.rawValue) }) }
        if !pending.isEmpty {
            members["pending"] = .array(pending.map { ["app": .string($0.app), "identifier": .string($0.identifier)] })
        }
        if let lowPowerModeTurnedOn { members["lowPowerModeTurnedOn"] = .bool(lowPowerModeTurnedOn) }
        if let minimumBatteryLevel { members["minimumBatteryLevel"] = minimumBatteryLevel.jsonValue { .double($0) } }
        return .object(members)
    }

    private static func readTasks(
        _ value: JSONValue,
        at path: ScenarioPath,
        context: Scenario.Context
    ) throws(ScenarioError) -> [TaskOutcome] {
        var seen: [TaskOutcome: Int] = [:]
        var result: [TaskOutcome] = []
        for (index, element) in try Read.array(value, at: path, limit: maximumCount).enumerated() {
            let elementPath = path.index(index)
            let object = try ObjectReader(
                element,
                at: elementPath,
                what: "a task expectation",
                keys: ["app", "identifier", "outcome", "count"]
            )
            let task = TaskOutcome(
                app: try object.required("app", context.app),
                identifier: try object.required("identifier", Read.identifier),
                outcome: try object.optional("outcome") { (value, path) throws(ScenarioError) in
                    try Read.choice(value, at: path, what: "a task outcome")
                } ?? .any,
                count: try object.optional("count", ScenarioComparison.count) ?? .atLeast(1)
            )
            var key = task
            key.count = .atLeast(1)
            if let first = seen[key] {
                throw ScenarioError(
                    code: .duplicate,
                    path: elementPath.description,
                    message: "tasks[\(first)] already sets a count for this app, identifier and outcome"
                )
            }
            seen[key] = index
            result.append(task)
        }
        return result
    }

    private static func readFinalStates(
        _ value: JSONValue,
        at path: ScenarioPath,
        context: Scenario.Context
    ) throws(ScenarioError) -> [String: AppState] {
        guard case .object(let entries) = value else {
            throw Read.wrongType(value, at: path, expected: "an object from app ids to states")
        }
        var states: [String: AppState] = [:]
        for app in entries.keys.sorted() {
            let entryPath = path.entry(app)
            try context.checkApp(app, at: entryPath)
            states[app] = try Read.choice(entries[app]!, at: entryPath, what: "an app state")
        }
        return states
    }

    private static func readPending(
        _ value: JSONValue,
        at path: ScenarioPath,
        context: Scenario.Context
    ) throws(ScenarioError) -> [PendingRequest] {
        var seen: [PendingRequest: Int] = [:]
        var result: [PendingRequest] = []
        for (index, element) in try Read.array(value, at: path, limit: maximumCount).enumerated() {
            let elementPath = path.index(index)
            let object = try ObjectReader(
                element,
                at: elementPath,
                what: "a pending request",
                keys: ["app", "identifier"]
            )
            let request = PendingRequest(
                app: try object.required("app", context.app),
                identifier: try object.required("identifier", Read.identifier)
            )
            if let first = seen[request] {
                throw ScenarioError(
                    code: .duplicate,
                    path: elementPath.description,
                    message: "pending[\(first)] already lists this request"
                )
            }
            seen[request] = index
            result.append(request)
        }
        return result
    }
}

extension Scenario.Expectations.Termination {
    init(json: JSONValue, at path: ScenarioPath, context: Scenario.Context) throws(ScenarioError) {
        let object = try ObjectReader(json, at: path, what: "a termination", keys: ["app", "code", "names"])
        self.init(
            app: try object.required("app", context.app),
            code: try object.optional("code", Scenario.Expectations.TerminationCode.init(json:at:)),
            names: try object.optional("names") { (value, path) throws(ScenarioError) in
                try Read.list(value, at: path, limit: 1000, Read.text)
            } ?? []
        )
    }

    /// The termination in the format's JSON form.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["app": .string(app)]
        if let code { members["code"] = .string(code.description) }
        if !names.isEmpty { members["names"] = .array(names.map { .string($0) }) }
        return .object(members)
    }
}

extension Scenario.Expectations.TerminationCode {
    init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
        let text = try Read.string(json, at: path)
        switch text {
        case "forceQuit": self = .forceQuit
        case "exit": self = .exit
        case "reclaimed": self = .reclaimed
        default:
            let digits = text.dropFirst(2)
            guard text.hasPrefix("0x"), (1...8).contains(digits.count), digits.allSatisfy(\.isHexDigit),
                let code = UInt32(digits, radix: 16)
            else {
                let suggestion = closestMatch(to: text, among: ["forceQuit", "exit", "reclaimed"])
                throw ScenarioError(
                    code: .invalidValue,
                    path: path.description,
                    message: "\(quoted(text)) is not a termination code; expected a hexadecimal exception code such as "
                        + "\"0x8badf00d\", or \"forceQuit\", \"exit\" or \"reclaimed\""
                        + (suggestion.map { "; did you mean \(quoted($0))?" } ?? ""),
                    suggestion: suggestion
                )
            }
            self = .exception(code)
        }
    }
}
