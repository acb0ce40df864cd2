extension Scenario {
    /// What the readers of apps, steps and expectations need to know about the rest of the scenario.
    struct Context {
        var appIDs: Set<String>
        var start: Start
        var duration: Duration

        /// Checks that `id` names an app of the scenario.
        func checkApp(_ id: String, at path: ScenarioPath) throws(ScenarioError) {
            guard !appIDs.contains(id) else { return }
            let suggestion = closestMatch(to: id, among: appIDs.sorted())
            throw ScenarioError(
                code: .unknownReference,
                path: path.description,
                message: "no app has the id \(quoted(id))" + (suggestion.map { "; did you mean \(quoted($0))?" } ?? ""),
                suggestion: suggestion
            )
        }

        /// Reads an app id that must name an app of the scenario.
        func app(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> String {
            let id = try Read.string(value, at: path)
            try checkApp(id, at: path)
            return id
        }
    }

    private static let keys = [
        "$schema", "formatVersion", "name", "description", "seed", "start", "duration", "policy", "device", "apps",
        "timeline", "expect",
    ]

    /// Builds a scenario from a parsed document, checking everything.
    init(json: JSONValue) throws(ScenarioError) {
        if case .object(let members) = json {
            try Self.checkFormatVersion(members["formatVersion"])
        }
        let object = try ObjectReader(json, at: .root, what: "a scenario", keys: Self.keys)
        _ = try object.optional("$schema", Read.string)
        let start = try object.optional("start") { (value, path) throws(ScenarioError) in
            try Start(parsing: Read.string(value, at: path), at: path)
        }
        self.init(
            name: try object.required("name", Read.text),
            description: try object.optional("description", Read.string),
            seed: try object.optional("seed", Self.readSeed) ?? 0,
            start: start ?? .default,
            duration: try object.required("duration", Read.positiveDuration),
            policy: try object.optional("policy", Policy.init(json:at:)) ?? .iOS,
            device: try object.optional("device", Device.init(json:at:)) ?? Device()
        )
        apps =
            try object.optional("apps") { (value, path) throws(ScenarioError) in
                try Self.readApps(value, at: path)
            } ?? []
        let context = Context(appIDs: Set(apps.map(\.id)), start: self.start, duration: duration)
        timeline =
            try object.optional("timeline") { (value, path) throws(ScenarioError) in
                try Read.list(value, at: path, limit: Self.maximumSteps) { (step, path) throws(ScenarioError) in
                    try Step(json: step, at: path, context: context)
                }
            } ?? []
        expectations = try object.optional("expect") { (value, path) throws(ScenarioError) in
            try Expectations(json: value, at: path, context: context)
        }
        try checkOccurrenceCount()
    }

    /// The scenario in the format's canonical JSON form, defaults left out.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "formatVersion": .integer(Int128(Self.formatVersion)),
            "name": .string(name),
            "duration": .string(ScenarioTime.format(duration)),
        ]
        if let description { members["description"] = .string(description) }
        if seed != 0 { members["seed"] = .integer(Int128(seed)) }
        if start != .default { members["start"] = .string(start.description) }
        if policy != .iOS { members["policy"] = policy.jsonValue }
        if device != Device() { members["device"] = device.jsonValue }
        if !apps.isEmpty { members["apps"] = .array(apps.map(\.jsonValue)) }
        if !timeline.isEmpty { members["timeline"] = .array(timeline.map(\.jsonValue)) }
        if let expectations { members["expect"] = expectations.jsonValue }
        return .object(members)
    }

    private static func checkFormatVersion(_ value: JSONValue?) throws(ScenarioError) {
        guard let value else {
            throw ScenarioError(
                code: .missingKey,
                path: "formatVersion",
                message: "the required key \"formatVersion\" is missing; this build reads \(formatVersion)"
            )
        }
        guard case .integer(let version) = value else {
            throw Read.wrongType(value, at: ScenarioPath.root.key("formatVersion"), expected: "a whole number")
        }
        guard version == formatVersion else {
            throw ScenarioError(
                code: .unsupportedVersion,
                path: "formatVersion",
                message: "unsupported formatVersion \(version); this build reads \(formatVersion)"
            )
        }
    }

    private static func readSeed(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> UInt64 {
        guard case .integer(let integer) = value else {
            throw Read.wrongType(value, at: path, expected: "a whole number from 0 to \(UInt64.max)")
        }
        guard let seed = UInt64(exactly: integer) else {
            throw ScenarioError(
                code: .outOfRange,
                path: path.description,
                message: "the seed \(integer) is not between 0 and \(UInt64.max)"
            )
        }
        return seed
    }

    private static func readApps(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> [App] {
        let apps = try Read.list(value, at: path, limit: maximumApps, App.init(json:at:))
        var seen: [String: Int] = [:]
        for (index, app) in apps.enumerated() {
            if let first = seen[app.id] {
                throw ScenarioError(
                    code: .duplicate,
                    path: path.index(index).key("id").description,
                    message: "the app id \(quoted(app.id)) is already used by apps[\(first)]"
                )
            }
            seen[app.id] = index
        }
        return apps
    }

    private func checkOccurrenceCount() throws(ScenarioError) {
        var total = 0
        for step in timeline {
            let first = step.at.offset(from: start)
            total += step.repeat.map { Self.occurrenceCount(first: first, interval: $0.interval, end: duration) } ?? 1
            guard total <= Self.maximumOccurrences else {
                throw ScenarioError(
                    code: .limitExceeded,
                    path: "timeline",
                    message: "the timeline expands to more than \(Self.maximumOccurrences) occurrences with its "
                        + "repeats; use longer repeat intervals or fewer steps"
                )
            }
        }
    }
}
