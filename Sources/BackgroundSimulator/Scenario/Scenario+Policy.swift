extension Scenario {
    /// The rules the simulated system enforces: which `SystemPolicy` the engine uses.
    ///
    /// Written `"iOS"`, `"iOS12"` or `{"server": {"grace": "30s"}}`.
    ///
    /// ```swift
    /// Scenario.Policy.server(grace: .seconds(30)).jsonValue   // {"server": {"grace": "30s"}}
    /// ```
    public enum Policy: Sendable, Hashable {
        /// `"iOS"`: Apple's current numbers (a 30 s background budget). The default.
        case iOS
        /// `"iOS12"`: iOS 7 to 12 (a 180 s background budget).
        case iOS12
        /// `{"server": {"grace": "<duration>"}}`: a Linux service's graceful shutdown with this
        /// budget; the process exits when its last assertion ends. `grace` is more than zero.
        case server(grace: Duration)

        init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
            switch json {
            case .string("iOS"): self = .iOS
            case .string("iOS12"): self = .iOS12
            case .string(let name):
                let suggestion = closestMatch(to: name, among: ["iOS", "iOS12", "server"])
                let hint =
                    suggestion == "server"
                    ? "; a server policy is an object, as in {\"server\": {\"grace\": \"30s\"}}"
                    : suggestion.map { "; did you mean \(quoted($0))?" } ?? ""
                throw ScenarioError(
                    code: .invalidValue,
                    path: path.description,
                    message: "\(quoted(name)) is not a policy; expected \"iOS\", \"iOS12\" or {\"server\": "
                        + "{\"grace\": \"<duration>\"}}" + hint,
                    suggestion: suggestion == "server" ? nil : suggestion
                )
            case .object:
                let object = try ObjectReader(json, at: path, what: "a policy object", keys: ["server"])
                let grace = try object.required("server") { (value, path) throws(ScenarioError) in
                    let server = try ObjectReader(value, at: path, what: "a server policy", keys: ["grace"])
                    return try server.required("grace", Read.positiveDuration)
                }
                self = .server(grace: grace)
            default:
                throw Read.wrongType(json, at: path, expected: "\"iOS\", \"iOS12\" or {\"server\": {\"grace\": …}}")
            }
        }

        /// The policy in the format's JSON form.
        public var jsonValue: JSONValue {
            switch self {
            case .iOS: return "iOS"
            case .iOS12: return "iOS12"
            case .server(let grace): return ["server": ["grace": .string(ScenarioTime.format(grace))]]
            }
        }
    }
}

extension Scenario.Policy: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}
