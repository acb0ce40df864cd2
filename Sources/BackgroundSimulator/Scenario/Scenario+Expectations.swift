extension Scenario {
    /// What must be true at the end of a run (`"expect"`); the engine checks each field that is
    /// set, and `bgctl simulate` exits with status 1 when one fails.
    ///
    /// ```json
    /// "expect": {
    ///   "violations": 0,
    ///   "terminations": [],
    ///   "tasks": [{"app": "com.example.news", "identifier": "com.example.news.refresh",
    ///              "outcome": "succeeded", "count": ">= 3"}],
    ///   "finalStates": {"com.example.news": "suspended"}
    /// }
    /// ```
    public struct Expectations: Sendable, Hashable {
        /// `violations`: the number of invariant violations. Unchecked when nil.
        public var violations: ScenarioComparison<Int>?
        /// `terminations`: every app termination, exactly, in order. Unchecked when nil; `[]`
        /// means no app may be terminated.
        public var terminations: [Termination]?
        /// `tasks`: counts of task runs by outcome. Each entry is checked.
        public var tasks: [TaskOutcome]
        /// `finalStates`: each listed app's lifecycle state at the end.
        public var finalStates: [String: AppState]
        /// `pending`: task requests that must still be pending at the end (others may be too).
        public var pending: [PendingRequest]
        /// `lowPowerModeTurnedOn`: whether Low Power Mode switched on at some point. Unchecked when nil.
        public var lowPowerModeTurnedOn: Bool?
        /// `minimumBatteryLevel`: a condition on the lowest battery level seen. Unchecked when nil.
        public var minimumBatteryLevel: ScenarioComparison<Double>?

        /// The most entries each list may have.
        public static let maximumCount = 10_000

        /// Creates expectations; by default nothing is checked.
        public init(
            violations: ScenarioComparison<Int>? = nil,
            terminations: [Termination]? = nil,
            tasks: [TaskOutcome] = [],
            finalStates: [String: AppState] = [:],
            pending: [PendingRequest] = [],
            lowPowerModeTurnedOn: Bool? = nil,
            minimumBatteryLevel: ScenarioComparison<Double>? = nil
        ) {
            self.violations = violations
            self.terminations = terminations
            self.tasks = tasks
            self.finalStates = finalStates
            self.pending = pending
            self.lowPowerModeTurnedOn = lowPowerModeTurnedOn
            self.minimumBatteryLevel = minimumBatteryLevel
        }

        /// An expected app termination.
        public struct Termination: Sendable, Hashable {
            /// `app`: the app that was terminated.
            public var app: String
            /// `code`: how it ended; nil (absent) for any way.
            public var code: TerminationCode?
            /// `names`: names of leaked assertions or tasks the termination report must mention.
            public var names: [String]

            /// Creates an expected termination.
            public init(app: String, code: TerminationCode? = nil, names: [String] = []) {
                self.app = app
                self.code = code
                self.names = names
            }
        }

        /// How an app ended.
        public enum TerminationCode: Sendable, Hashable, CustomStringConvertible {
            /// `"0x8badf00d"` and other hexadecimal codes: the watchdog killed it with this code.
            case exception(UInt32)
            /// `"forceQuit"`: the user removed it from the app switcher.
            case forceQuit
            /// `"exit"`: the process exited by itself (a server policy's end).
            case exit
            /// `"reclaimed"`: the system reclaimed it while suspended.
            case reclaimed

            /// The code as written in a file: `0x8badf00d`, `forceQuit`, `exit` or `reclaimed`.
            public var description: String {
                switch self {
                case .exception(let code): return "0x" + String(code, radix: 16)
                case .forceQuit: return "forceQuit"
                case .exit: return "exit"
                case .reclaimed: return "reclaimed"
                }
            }
        }

        /// A condition on how many runs of a task ended a certain way.
        public struct TaskOutcome: Sendable, Hashable {
            /// How a task run ended.
            public enum Outcome: String, Sendable, Hashable, CaseIterable {
                /// `"succeeded"`: completed with `setTaskCompleted(success: true)`.
                case succeeded
                /// `"failed"`: completed with `setTaskCompleted(success: false)`, including by
                /// an expiration handler.
                case failed
                /// `"killed"`: the app was terminated while the task ran.
                case killed
                /// `"any"`: any of these; counts every run. The default.
                case any
            }

            /// `app`: the app.
            public var app: String
            /// `identifier`: the task identifier.
            public var identifier: String
            /// `outcome`: which runs to count. Default ``Outcome/any``.
            public var outcome: Outcome
            /// `count`: the condition on their number. Default `">= 1"`.
            public var count: ScenarioComparison<Int>

            /// Creates a task expectation.
            public init(
                app: String,
                identifier: String,
                outcome: Outcome = .any,
                count: ScenarioComparison<Int> = .atLeast(1)
            ) {
                self.app = app
                self.identifier = identifier
                self.outcome = outcome
                self.count = count
            }
        }

        /// An app lifecycle state at the end of the scenario.
        public enum AppState: String, Sendable, Hashable, CaseIterable {
            /// `"notRunning"`: never launched.
            case notRunning
            /// `"active"`: in the foreground, receiving events.
            case active
            /// `"inactive"`: in the foreground, not receiving events.
            case inactive
            /// `"background"`: running in the background.
            case background
            /// `"suspended"`: in memory, not running.
            case suspended
            /// `"terminated"`: ended, for whatever reason.
            case terminated
        }

        /// A task request that must be pending at the end.
        public struct PendingRequest: Sendable, Hashable {
            /// `app`: the app that submitted it.
            public var app: String
            /// `identifier`: its task identifier.
            public var identifier: String

            /// Creates a pending-request expectation.
            public init(app: String, identifier: String) {
                self.app = app
                self.identifier = identifier
            }
        }
    }
}

extension Scenario.Expectations: Encodable {
    /// Encodes the format's JSON form (see ``jsonValue``).
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}
