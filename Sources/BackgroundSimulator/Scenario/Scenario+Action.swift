public import BackgroundCore

extension Scenario {
    /// One thing an app's code does: a call to `BGTaskScheduler`, `UIApplication` or their kin.
    ///
    /// Written as an object with exactly one key, the action's name:
    ///
    /// ```json
    /// {"register": "com.example.news.refresh"}
    /// {"submit": {"identifier": "com.example.news.refresh", "kind": "refresh", "earliestBegin": "15m"}}
    /// {"beginBackgroundTask": {"name": "Upload", "work": "20s"}}
    /// ```
    public enum Action: Sendable, Hashable {
        /// `{"register": "<identifier>"}`: `BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)`;
        /// the launch handler does what the app's `tasks` entry for the identifier says.
        case register(String)
        /// `{"submit": {…}}`: `BGTaskScheduler.submit(_:)`.
        case submit(Submission)
        /// `{"cancel": "<identifier>"}`: `BGTaskScheduler.cancel(taskRequestWithIdentifier:)`.
        case cancel(String)
        /// `{"cancelAll": true}`: `BGTaskScheduler.cancelAllTaskRequests()`.
        case cancelAll
        /// `{"beginBackgroundTask": {…}}`: `UIApplication.beginBackgroundTask(withName:expirationHandler:)`.
        case beginBackgroundTask(BackgroundTask)
        /// `{"setMinimumBackgroundFetchInterval": …}`: `UIApplication.setMinimumBackgroundFetchInterval(_:)`.
        case setMinimumBackgroundFetchInterval(FetchInterval)
        /// `beginActivity`: begins a background mode's activity (`UIApplication.beginActivity(_:)`:
        /// playing audio, location updates, a call, ...) and ends it after `for`, or never.
        ///
        /// ```json
        /// {"beginActivity": {"mode": "audio", "for": "45m"}}
        /// ```
        case beginActivity(Activity)
        /// `{"download": {…}}`: a background `URLSession` download (`downloadTask(with:)`, `resume()`).
        case download(Transfer)
        /// `{"upload": {…}}`: a background `URLSession` upload from a file (`uploadTask(with:fromFile:)`).
        case upload(Transfer)

        /// The most actions one list (`onLaunch`, `then`, …) may hold.
        public static let maximumCount = 1000

        /// The keys an action object may have; it has exactly one of them.
        static let names = [
            "register", "submit", "cancel", "cancelAll", "beginBackgroundTask", "setMinimumBackgroundFetchInterval",
            "beginActivity", "download", "upload",
        ]

        /// A background mode's activity: which mode, and how long the app keeps it.
        public struct Activity: Sendable, Hashable {
            /// `mode`: a `UIBackgroundModes` string, for example `audio`.
            public var mode: BackgroundMode
            /// `for`: how long until the app ends it; nil: it never does (the process's end does).
            public var duration: Duration?

            /// Creates an activity.
            public init(mode: BackgroundMode, duration: Duration? = nil) {
                self.mode = mode
                self.duration = duration
            }
        }

        /// A task request to submit.
        ///
        /// ```json
        /// {"identifier": "com.example.news.db-cleanup", "kind": "processing", "requiresExternalPower": true}
        /// ```
        public struct Submission: Sendable, Hashable {
            /// The kind of request, with the requirements only processing requests have.
            public enum Kind: Sendable, Hashable {
                /// `"refresh"`: a `BGAppRefreshTaskRequest`.
                case refresh
                /// `"processing"`: a `BGProcessingTaskRequest` with its two requirements, which
                /// default to false.
                case processing(requiresNetwork: Bool = false, requiresExternalPower: Bool = false)
            }

            /// `identifier`: the task identifier. Required.
            public var identifier: String
            /// `kind`: `"refresh"` or `"processing"`. Required.
            public var kind: Kind
            /// `earliestBegin`: the request's `earliestBeginDate`, measured from when the action
            /// runs; nil (absent) for no earliest date.
            public var earliestBegin: Duration?

            /// Creates a submission.
            public init(identifier: String, kind: Kind, earliestBegin: Duration? = nil) {
                self.identifier = identifier
                self.kind = kind
                self.earliestBegin = earliestBegin
            }
        }

        /// A background task assertion an action begins, and how the app ends it.
        ///
        /// ```json
        /// {"name": "Upload", "work": "20s", "onExpiration": "end"}
        /// ```
        public struct BackgroundTask: Sendable, Hashable {
            /// When the app ends the assertion.
            public enum End: Sendable, Hashable {
                /// `"work": "<duration>"` (default `"0s"`): after this long.
                case after(Duration)
                /// `"leak": true`: never; the assertion leaks.
                case never
            }

            /// What the expiration handler does.
            public enum ExpirationHandler: String, Sendable, Hashable, CaseIterable {
                /// `"end"`: the handler ends the assertion. The default.
                case end
                /// `"ignore"`: the handler returns without ending it.
                case ignore
                /// `"none"`: no expiration handler is passed.
                case noHandler = "none"
            }

            /// `name`: the task's name; nil (absent) to let the system generate one.
            public var name: String?
            /// `work` or `leak`: when the assertion ends. Default after `0s`.
            public var end: End
            /// `onExpiration`: what the expiration handler does. Default ``ExpirationHandler/end``.
            public var onExpiration: ExpirationHandler

            /// Creates a background task action.
            public init(name: String? = nil, end: End = .after(.zero), onExpiration: ExpirationHandler = .end) {
                self.name = name
                self.end = end
                self.onExpiration = onExpiration
            }
        }

        /// The argument of `setMinimumBackgroundFetchInterval(_:)`.
        public enum FetchInterval: Sendable, Hashable {
            /// `"minimum"`: `UIApplication.backgroundFetchIntervalMinimum`.
            case minimum
            /// `"never"`: `UIApplication.backgroundFetchIntervalNever`.
            case never
            /// `"<duration>"`: this interval.
            case interval(Duration)
        }
    }
}

extension Scenario.Action: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}
