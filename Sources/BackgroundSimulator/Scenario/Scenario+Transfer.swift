extension Scenario.Action {
    /// A background `URLSession` transfer an app starts (`download` or `upload`), and what the
    /// virtual network's server does with it.
    ///
    /// ```json
    /// {"download": {"url": "https://example.com/episode.mp3", "bytes": 5000000, "discretionary": true,
    ///               "failures": [{"dropAt": 1000000}]}}
    /// ```
    ///
    /// The app keeps one background session per kind of transfer it starts (discretionary or
    /// not, cellular allowed or not), recreated at every launch so that the system can relaunch
    /// it for its events.
    public struct Transfer: Sendable, Hashable {
        /// `url`: an `http` or `https` URL. Required.
        public var url: String
        /// `bytes`: the body's length (a download's resource, an upload's file). Required, at
        /// least 0 and at most 1 TB.
        public var bytes: Int64
        /// `discretionary`: the session's `isDiscretionary`. Default false.
        public var discretionary: Bool
        /// `cellular`: the session's `allowsCellularAccess`. Default true.
        public var cellular: Bool
        /// `earliestBegin`: the task's `earliestBeginDate`, from when the action runs.
        public var earliestBegin: Duration?
        /// `priority`: the task's priority, 0 to 1. Default 0.5.
        public var priority: Double
        /// `failures`: what the server does wrong, once each, in order.
        public var failures: [VirtualResource.Failure]

        /// The largest `bytes`.
        public static let maximumBytes: Int64 = 1_000_000_000_000

        /// Creates a transfer.
        public init(
            url: String,
            bytes: Int64,
            discretionary: Bool = false,
            cellular: Bool = true,
            earliestBegin: Duration? = nil,
            priority: Double = 0.5,
            failures: [VirtualResource.Failure] = []
        ) {
            self.url = url
            self.bytes = bytes
            self.discretionary = discretionary
            self.cellular = cellular
            self.earliestBegin = earliestBegin
            self.priority = priority
            self.failures = failures
        }

        /// The identifier of the app's session for this kind of transfer:
        /// `<app>.transfers`, with `.discretionary` and `.wifi-only` as they apply.
        func session(of app: String) -> String {
            app + ".transfers" + (discretionary ? ".discretionary" : "") + (cellular ? "" : ".wifi-only")
        }
    }
}

extension Scenario.Action.Transfer {
    private static let keys = ["url", "bytes", "discretionary", "cellular", "earliestBegin", "priority", "failures"]
    private static let failureKeys = ["dropAt", "changesAt", "serverError", "attempts"]

    init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
        let object = try ObjectReader(json, at: path, what: "a transfer", keys: Self.keys)
        let url = try object.required("url", Read.text)
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.utf8.count <= 8192 else {
            throw ScenarioError(
                code: .invalidValue,
                path: path.key("url").description,
                message: "\(quoted(url)) is not an http or https URL of at most 8 KiB"
            )
        }
        self.init(
            url: url,
            bytes: try object.required("bytes") { (value, path) throws(ScenarioError) in
                try Self.byteCount(value, at: path)
            },
            discretionary: try object.optional("discretionary", Read.bool) ?? false,
            cellular: try object.optional("cellular", Read.bool) ?? true,
            earliestBegin: try object.optional("earliestBegin", Read.duration),
            priority: try object.optional("priority", Read.fraction) ?? 0.5,
            failures: try object.optional("failures") { (value, path) throws(ScenarioError) in
                try Read.list(value, at: path, limit: 100, Self.failure(_:at:))
            } ?? []
        )
    }

    /// A byte count: an integer from 0 to ``maximumBytes``.
    static func byteCount(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> Int64 {
        guard case .integer(let number) = value else {
            throw Read.wrongType(value, at: path, expected: "a whole number of bytes")
        }
        guard number >= 0, number <= Int128(maximumBytes) else {
            throw ScenarioError(
                code: .outOfRange,
                path: path.description,
                message: "\(number) is not between 0 and \(maximumBytes) bytes"
            )
        }
        return Int64(number)
    }

    private static func failure(
        _ value: JSONValue,
        at path: ScenarioPath
    ) throws(ScenarioError)
        -> VirtualResource.Failure
    {
        let object = try ObjectReader(value, at: path, what: "a failure", keys: failureKeys)
        if object.has("dropAt") { return .dropAt(try object.required("dropAt", byteCount)) }
        if object.has("changesAt") { return .changesAt(try object.required("changesAt", byteCount)) }
        guard object.has("serverError") else {
            throw ScenarioError(
                code: .invalidValue,
                path: path.description,
                message:
                    "a failure is {\"dropAt\": <byte>}, {\"changesAt\": <byte>} or {\"serverError\": <5xx>, \"attempts\": <n>}"
            )
        }
        let status = try object.required("serverError") { (value, path) throws(ScenarioError) -> Int in
            guard case .integer(let status) = value, (500...599).contains(status) else {
                throw ScenarioError(code: .outOfRange, path: path.description, message: "a server error is 500 to 599")
            }
            return Int(status)
        }
        let attempts = try object.optional("attempts") { (value, path) throws(ScenarioError) -> Int in
            guard case .integer(let count) = value, (1...100).contains(count) else {
                throw ScenarioError(code: .outOfRange, path: path.description, message: "attempts is 1 to 100")
            }
            return Int(count)
        }
        return .serverError(status: status, attempts: attempts ?? 1)
    }

    /// The transfer in the format's JSON form, defaults left out.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["url": .string(url), "bytes": .integer(Int128(bytes))]
        if discretionary { members["discretionary"] = true }
        if !cellular { members["cellular"] = false }
        if let earliestBegin { members["earliestBegin"] = .string(ScenarioTime.format(earliestBegin)) }
        if priority != 0.5 { members["priority"] = .double(priority) }
        if !failures.isEmpty {
            members["failures"] = .array(
                failures.map { failure -> JSONValue in
                    switch failure {
                    case .dropAt(let byte): return ["dropAt": .integer(Int128(byte))]
                    case .changesAt(let byte): return ["changesAt": .integer(Int128(byte))]
                    case .serverError(let status, let attempts):
                        return ["serverError": .integer(Int128(status)), "attempts": .integer(Int128(attempts))]
                    }
                }
            )
        }
        return .object(members)
    }
}
