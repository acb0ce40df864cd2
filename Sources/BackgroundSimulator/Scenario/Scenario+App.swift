extension Scenario {
    /// An app installed on the simulated device: its manifest and what its code does.
    ///
    /// ```json
    /// {
    ///   "id": "com.example.news",
    ///   "manifest": {"BGTaskSchedulerPermittedIdentifiers": ["com.example.news.refresh"]},
    ///   "onLaunch": [{"register": "com.example.news.refresh"}],
    ///   "onEnterBackground": [{"submit": {"identifier": "com.example.news.refresh", "kind": "refresh"}}],
    ///   "tasks": {"com.example.news.refresh": {"work": "10s"}}
    /// }
    /// ```
    public struct App: Sendable, Hashable {
        /// The most entries `tasks` may have.
        public static let maximumTasks = 1000

        /// `id`: the bundle identifier, unique in the scenario. 1 to 255 ASCII letters, digits,
        /// `.`, `-` and `_`.
        public var id: String
        /// `manifest`: the `Info.plist` keys that matter to background execution
        /// (`BGTaskSchedulerPermittedIdentifiers`, `UIBackgroundModes`, …), kept raw; nil when absent.
        public var manifest: [String: JSONValue]?
        /// `backgroundAppRefresh`: the app's own Background App Refresh switch at T+0. Default true.
        public var backgroundAppRefresh: Bool
        /// `onLaunch`: run at every launch of the process, foreground or background, before the
        /// launch finishes (`application(_:didFinishLaunchingWithOptions:)`).
        public var onLaunch: [Action]
        /// `onEnterBackground`: run in `applicationDidEnterBackground(_:)`.
        public var onEnterBackground: [Action]
        /// `onBecomeActive`: run in `applicationDidBecomeActive(_:)`.
        public var onBecomeActive: [Action]
        /// `tasks`: what the launch handler of each task identifier does, sorted by identifier.
        /// An identifier that is registered but has no entry behaves as `TaskBehaviour()`.
        public var tasks: [TaskHandler]
        /// `fetch`: what `application(_:performFetchWithCompletionHandler:)` does; nil when the
        /// app does not implement it.
        public var fetch: FetchBehaviour?
        /// `remoteNotification`: what `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`
        /// does with a silent push (work, then the completion's result); nil: it completes at
        /// once with `noData`.
        public var remoteNotification: FetchBehaviour?

        /// One entry of ``tasks``: a task identifier and what its launch handler does.
        public struct TaskHandler: Sendable, Hashable {
            /// The task identifier.
            public var identifier: String
            /// What the launch handler does.
            public var behaviour: TaskBehaviour

            /// Creates an entry.
            public init(identifier: String, behaviour: TaskBehaviour = TaskBehaviour()) {
                self.identifier = identifier
                self.behaviour = behaviour
            }
        }

        /// Creates an app; `tasks` is sorted by identifier.
        public init(
            id: String,
            manifest: [String: JSONValue]? = nil,
            backgroundAppRefresh: Bool = true,
            onLaunch: [Action] = [],
            onEnterBackground: [Action] = [],
            onBecomeActive: [Action] = [],
            tasks: [TaskHandler] = [],
            fetch: FetchBehaviour? = nil,
            remoteNotification: FetchBehaviour? = nil
        ) {
            self.id = id
            self.manifest = manifest
            self.backgroundAppRefresh = backgroundAppRefresh
            self.onLaunch = onLaunch
            self.onEnterBackground = onEnterBackground
            self.onBecomeActive = onBecomeActive
            self.tasks = tasks.sorted { $0.identifier < $1.identifier }
            self.fetch = fetch
            self.remoteNotification = remoteNotification
        }

        /// What the launch handler for `identifier` does: its `tasks` entry, or the default
        /// behaviour (1 s of work, then success) when there is none.
        public func behaviour(forTask identifier: String) -> TaskBehaviour {
            tasks.first { $0.identifier == identifier }?.behaviour ?? TaskBehaviour()
        }

        private static let keys = [
            "id", "manifest", "backgroundAppRefresh", "onLaunch", "onEnterBackground", "onBecomeActive", "tasks",
            "fetch", "remoteNotification",
        ]

        init(json: JSONValue, at path: ScenarioPath) throws(ScenarioError) {
            let object = try ObjectReader(json, at: path, what: "an app", keys: Self.keys)
            self.init(
                id: try object.required("id", Read.identifier),
                manifest: try object.optional("manifest") { (value, path) throws(ScenarioError) in
                    guard case .object(let members) = value else {
                        throw Read.wrongType(value, at: path, expected: "an object of Info.plist keys")
                    }
                    return members
                },
                backgroundAppRefresh: try object.optional("backgroundAppRefresh", Read.bool) ?? true,
                onLaunch: try object.optional("onLaunch", Action.list) ?? [],
                onEnterBackground: try object.optional("onEnterBackground", Action.list) ?? [],
                onBecomeActive: try object.optional("onBecomeActive", Action.list) ?? [],
                tasks: try object.optional("tasks", Self.readTasks) ?? [],
                fetch: try object.optional("fetch", FetchBehaviour.init(json:at:)),
                remoteNotification: try object.optional("remoteNotification", FetchBehaviour.init(json:at:))
            )
        }

        private static func readTasks(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> [TaskHandler]
        {
            guard case .object(let entries) = value else {
                throw Read.wrongType(value, at: path, expected: "an object from task identifiers to behaviours")
            }
            guard entries.count <= maximumTasks else {
                throw ScenarioError(
                    code: .limitExceeded,
                    path: path.description,
                    message: "has \(entries.count) entries; the limit is \(maximumTasks)"
                )
            }
            var handlers: [TaskHandler] = []
            for identifier in entries.keys.sorted() {
                let entryPath = path.entry(identifier)
                try Read.checkIdentifier(identifier, at: entryPath)
                handlers.append(
                    TaskHandler(
                        identifier: identifier,
                        behaviour: try TaskBehaviour(json: entries[identifier]!, at: entryPath)
                    )
                )
            }
            return handlers
        }

        /// The app in the format's JSON form, defaults left out.
        public var jsonValue: JSONValue {
            var members: [String: JSONValue] = ["id": .string(id)]
            if let manifest { members["manifest"] = .object(manifest) }
            if !backgroundAppRefresh { members["backgroundAppRefresh"] = false }
            if !onLaunch.isEmpty { members["onLaunch"] = .array(onLaunch.map(\.jsonValue)) }
            if !onEnterBackground.isEmpty { members["onEnterBackground"] = .array(onEnterBackground.map(\.jsonValue)) }
            if !onBecomeActive.isEmpty { members["onBecomeActive"] = .array(onBecomeActive.map(\.jsonValue)) }
            if !tasks.isEmpty {
                members["tasks"] = .object(
                    Dictionary(
                        tasks.map { ($0.identifier, $0.behaviour.jsonValue) },
                        uniquingKeysWith: { first, _ in first }
                    )
                )
            }
            if let fetch { members["fetch"] = fetch.jsonValue }
            return .object(members)
        }
    }
}

extension Scenario.App: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}
