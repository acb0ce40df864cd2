public import BackgroundCore
import Foundation

/// The JSON answer of `bgctl why --json`, the same whether the system was restored from a
/// store, run from a scenario, or asked over a running app's control socket.
///
/// Instants are seconds from `timelineOrigin`; `nowDate` is `now` as an ISO 8601 date.
public struct WhyDocument: Codable, Sendable, Hashable {
    /// The app explained.
    public var app: AppID
    /// The wall-clock date of T+0: instants in the document are seconds from it.
    public var timelineOrigin: String
    /// The instant of the answer.
    public var now: Instant
    /// `now` as an ISO 8601 date.
    public var nowDate: String
    /// One explanation per identifier asked about that is pending (or, with history, has runs).
    public var explanations: [RequestExplanation]
    /// Identifiers asked about that are neither pending nor in the history.
    public var unknown: [String]
    /// The background mode that keeps the app running in the background now, if one does
    /// (a running app's answer; absent from stores and scenarios).
    public var keptAwakeBy: HeldModeDocument?

    /// Creates a document.
    public init(
        app: AppID,
        timelineOrigin: String,
        now: Instant,
        nowDate: String,
        explanations: [RequestExplanation],
        unknown: [String],
        keptAwakeBy: HeldModeDocument? = nil
    ) {
        self.keptAwakeBy = keptAwakeBy
        self.app = app
        self.timelineOrigin = timelineOrigin
        self.now = now
        self.nowDate = nowDate
        self.explanations = explanations
        self.unknown = unknown
    }

    /// Encodes a value the way every `--json` answer of the project is printed: pretty, with
    /// sorted keys, so the same answer is the same bytes in any process.
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension RequestExplanation {
    /// The eligibility alone (`bgctl why --json` without `--history`).
    public var withoutHistory: RequestExplanation {
        var copy = self
        copy.history.runs = []
        copy.history.waiting = []
        copy.whatIfs = []
        copy.likelyRange = nil
        return copy
    }
}

/// The JSON answer of `bgctl status --json`: a running app's state, pending requests and
/// running tasks.
public struct StatusDocument: Codable, Sendable, Hashable {
    /// A pending request.
    public struct Pending: Codable, Sendable, Hashable {
        /// The request identifier.
        public var identifier: String
        /// `appRefresh`, `processing`, ...
        public var kind: String
        /// Its `earliestBeginDate` as an ISO 8601 date, `nil` for "now".
        public var earliestBegin: String?
    }

    /// A running task.
    public struct Running: Codable, Sendable, Hashable {
        /// The request identifier.
        public var identifier: String
        /// `appRefresh`, `processing`, ...
        public var kind: String
        /// When it started, as an ISO 8601 date.
        public var since: String
    }

    /// The app.
    public var app: AppID
    /// The process answering.
    public var pid: Int32
    /// The app's lifecycle state, as `status` prints it.
    public var state: String
    /// Pending requests, oldest first.
    public var pending: [Pending]
    /// Running tasks.
    public var running: [Running]
    /// The background modes the app holds, by name (absent from older apps' answers).
    public var modes: [HeldModeDocument]?
    /// The mode that keeps the app running in the background now, if one does.
    public var keptAwakeBy: HeldModeDocument?
}
