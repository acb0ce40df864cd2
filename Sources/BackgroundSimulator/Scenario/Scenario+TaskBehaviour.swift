extension Scenario {
    /// What a `BGTaskScheduler` launch handler does when the system runs its task.
    ///
    /// The handler works for ``work``, then calls `setTaskCompleted(success:)` and runs its
    /// ``Completion/complete(success:then:)`` actions; or, with `"neverComplete": true`, never
    /// completes (the watchdog's business). If the task expires first, the expiration handler
    /// does what ``onExpiration`` says.
    ///
    /// ```json
    /// {"work": "10s", "then": [{"submit": {"identifier": "com.example.news.refresh", "kind": "refresh"}}]}
    /// ```
    public struct TaskBehaviour: Sendable, Hashable {
        /// How the handler ends.
        public enum Completion: Sendable, Hashable {
            /// `"success"` (default true) and `"then"` (default none): call
            /// `setTaskCompleted(success:)` after the work, then run these actions.
            case complete(success: Bool, then: [Action])
            /// `"neverComplete": true`: never call `setTaskCompleted(success:)`.
            case never
        }

        /// What the task's expiration handler does.
        public enum ExpirationHandler: String, Sendable, Hashable, CaseIterable {
            /// `"complete"`: calls `setTaskCompleted(success: false)`. The default.
            case complete
            /// `"ignore"`: returns without completing the task.
            case ignore
            /// `"none"`: the handler sets no `expirationHandler`.
            case noHandler = "none"
        }

        /// `work`: how long the handler works before completing. Default 1 s.
        public var work: Duration
        /// `success`, `then` and `neverComplete`: how the handler ends. Default: success, no actions.
        public var completion: Completion
        /// `onExpiration`: what the expiration handler does. Default ``ExpirationHandler/complete``.
        public var onExpiration: ExpirationHandler

        /// Creates a behaviour; the defaults are those of the format.
        public init(
            work: Duration = .seconds(1),
            completion: Completion = .complete(success: true, then: []),
            onExpiration: ExpirationHandler = .complete
        ) {
            self.work = work
            self.completion = completion
            self.onExpiration = onExpiration
        }

        init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
            let object = try ObjectReader(
                json,
                at: path,
                what: "a task behaviour",
                keys: ["work", "success", "onExpiration", "neverComplete", "then"]
            )
            let work = try object.optional("work", Read.duration) ?? .seconds(1)
            let onExpiration: ExpirationHandler =
                try object.optional("onExpiration") {
                    (value, path) throws(ScenarioError) in
                    try Read.choice(value, at: path, what: "an expiration behaviour")
                } ?? .complete
            let success = try object.optional("success", Read.bool)
            let then = try object.optional("then", Action.list)
            if try object.optional("neverComplete", Read.bool) ?? false {
                for key in ["success", "then"] where object.has(key) {
                    throw object.conflict(key, "\(quoted(key)) has no effect when \"neverComplete\" is true")
                }
                self.init(work: work, completion: .never, onExpiration: onExpiration)
            } else {
                self.init(
                    work: work,
                    completion: .complete(success: success ?? true, then: then ?? []),
                    onExpiration: onExpiration
                )
            }
        }

        /// The behaviour in the format's JSON form, defaults left out.
        public var jsonValue: JSONValue {
            var members: [String: JSONValue] = [:]
            if work != .seconds(1) { members["work"] = .string(ScenarioTime.format(work)) }
            switch completion {
            case .complete(let success, let then):
                if !success { members["success"] = false }
                if !then.isEmpty { members["then"] = .array(then.map(\.jsonValue)) }
            case .never:
                members["neverComplete"] = true
            }
            if onExpiration != .complete { members["onExpiration"] = .string(onExpiration.rawValue) }
            return .object(members)
        }
    }

    /// What `application(_:performFetchWithCompletionHandler:)` does: work, then call the
    /// completion handler with a result.
    ///
    /// ```json
    /// "fetch": {"work": "5s", "result": "newData"}
    /// ```
    public struct FetchBehaviour: Sendable, Hashable {
        /// The `UIBackgroundFetchResult` passed to the completion handler.
        public enum Result: String, Sendable, Hashable, CaseIterable {
            /// `"newData"`. The default.
            case newData
            /// `"noData"`.
            case noData
            /// `"failed"`.
            case failed
        }

        /// `work`: how long the fetch works before calling the completion handler. Default 1 s.
        public var work: Duration
        /// `result`: what it passes to the completion handler. Default ``Result/newData``.
        public var result: Result

        /// Creates a fetch behaviour; the defaults are those of the format.
        public init(work: Duration = .seconds(1), result: Result = .newData) {
            self.work = work
            self.result = result
        }

        init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
            let object = try ObjectReader(json, at: path, what: "a fetch behaviour", keys: ["work", "result"])
            self.init(
                work: try object.optional("work", Read.duration) ?? .seconds(1),
                result: try object.optional("result") { (value, path) throws(ScenarioError) in
                    try Read.choice(value, at: path, what: "a fetch result")
                } ?? .newData
            )
        }

        /// The behaviour in the format's JSON form, defaults left out.
        public var jsonValue: JSONValue {
            var members: [String: JSONValue] = [:]
            if work != .seconds(1) { members["work"] = .string(ScenarioTime.format(work)) }
            if result != .newData { members["result"] = .string(result.rawValue) }
            return .object(members)
        }
    }
}

extension Scenario.TaskBehaviour: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}

extension Scenario.FetchBehaviour: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}
