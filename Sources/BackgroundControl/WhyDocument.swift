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
    /// The app's background transfers that have not completed, running or waiting with their
    /// reasons (a running app's answer; `--store` answers list them among the requests).
    public var transfers: [TransferExplanation]?
    /// The wall-clock date of the transfer service's T+0: the transfers' instants are seconds
    /// from it (the service keeps its own clock).
    public var transfersTimelineOrigin: String?

    /// Creates a document.
    public init(
        app: AppID,
        timelineOrigin: String,
        now: Instant,
        nowDate: String,
        explanations: [RequestExplanation],
        unknown: [String],
        keptAwakeBy: HeldModeDocument? = nil,
        transfers: [TransferExplanation]? = nil,
        transfersTimelineOrigin: String? = nil
    ) {
        self.keptAwakeBy = keptAwakeBy
        self.transfers = transfers
        self.transfersTimelineOrigin = transfersTimelineOrigin
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

/// A background transfer in `bgctl why --json` from a running app.
public struct TransferExplanation: Codable, Sendable, Hashable {
    /// `<session>#<task>`.
    public var identifier: String
    /// The background session's identifier.
    public var session: String
    /// The task's identifier.
    public var task: Int
    /// `running` or `waiting`.
    public var state: String
    /// Why it waits (or that it may run), under the core's transfer rules.
    public var eligibility: Eligibility

    /// Creates an explanation.
    public init(identifier: String, session: String, task: Int, state: String, eligibility: Eligibility) {
        self.identifier = identifier
        self.session = session
        self.task = task
        self.state = state
        self.eligibility = eligibility
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

        package init(identifier: String, kind: String, earliestBegin: String?) {
            self.identifier = identifier
            self.kind = kind
            self.earliestBegin = earliestBegin
        }
    }

    /// A running task.
    public struct Running: Codable, Sendable, Hashable {
        /// The request identifier.
        public var identifier: String
        /// `appRefresh`, `processing`, ...
        public var kind: String
        /// When it started, as an ISO 8601 date.
        public var since: String

        package init(identifier: String, kind: String, since: String) {
            self.identifier = identifier
            self.kind = kind
            self.since = since
        }
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
    /// The device's conditions with their sources (absent from older apps' answers).
    public var device: [ConditionDocument]?

    // The embedded system (BackgroundExecution) makes these; memberwise, as before the move.
    package init(
        app: AppID,
        pid: Int32,
        state: String,
        pending: [Pending],
        running: [Running],
        modes: [HeldModeDocument]?,
        keptAwakeBy: HeldModeDocument?,
        device: [ConditionDocument]?
    ) {
        self.app = app
        self.pid = pid
        self.state = state
        self.pending = pending
        self.running = running
        self.modes = modes
        self.keptAwakeBy = keptAwakeBy
        self.device = device
    }
}
