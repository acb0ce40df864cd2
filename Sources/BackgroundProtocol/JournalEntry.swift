public import BackgroundCore

/// One line of the daemon's journal (`<state>/journal.jsonl`): an event it handled or an effect
/// it carried out, at a wall-clock time. `bgctl daemon timeline` and `bgctl daemon log` read it.
///
/// The file holds one JSON object per line, appended with `O_APPEND`; a reader skips a torn last
/// line (a daemon killed while writing it).
public struct JournalEntry: Sendable, Hashable, Codable {
    /// Wall-clock seconds since 1970.
    public var time: Double
    /// The event handled, if this line is an event.
    public var event: Event?
    /// The event's reply, if it had one.
    public var reply: Reply?
    /// The effect carried out, if this line is an effect.
    public var effect: Effect?
    /// An app's background time, if this line is a reading of it: written when it changes
    /// course (enters the background, starts or stops going down, leaves the background), for
    /// the timeline's budget lane. Absent in journals written before it was recorded.
    public var budget: BudgetReading?

    /// An app's background time at the entry's time.
    public struct BudgetReading: Sendable, Hashable, Codable {
        /// Whose.
        public var app: AppID
        /// The background time remaining, in seconds.
        public var remainingSeconds: Double
        /// The budget it counts down from, in seconds.
        public var limitSeconds: Double
        /// Whether it goes down from here (the app holds an assertion in the background).
        public var depleting: Bool

        /// Creates a reading.
        public init(app: AppID, remainingSeconds: Double, limitSeconds: Double, depleting: Bool) {
            self.app = app
            self.remainingSeconds = remainingSeconds
            self.limitSeconds = limitSeconds
            self.depleting = depleting
        }
    }

    /// A background transfer the daemon runs, when this line is a change of it: it waits (and
    /// why), runs, completed or failed, for the timeline's transfers lane. Absent in journals
    /// written before it was recorded.
    public var transfer: TransferReading?

    /// A background transfer's phase at the entry's time.
    public struct TransferReading: Sendable, Hashable, Codable {
        /// Where a transfer is.
        public enum Phase: String, Sendable, Hashable, Codable {
            /// Queued: its conditions (the detail says which), its turn, a retry.
            case waiting
            /// Bytes moving.
            case running
            /// A response arrived (whatever its status): the end.
            case completed
            /// An error ended it (-999 cancelled, …): the end.
            case failed
        }

        /// Whose.
        public var app: AppID
        /// The background session's identifier.
        public var session: String
        /// The task's identifier.
        public var task: Int
        /// Where it is.
        public var phase: Phase
        /// Why it waits, or how it ended, in words.
        public var detail: String

        /// Creates a reading.
        public init(app: AppID, session: String, task: Int, phase: Phase, detail: String) {
            self.app = app
            self.session = session
            self.task = task
            self.phase = phase
            self.detail = detail
        }
    }

    /// Creates an entry.
    public init(
        time: Double,
        event: Event? = nil,
        reply: Reply? = nil,
        effect: Effect? = nil,
        budget: BudgetReading? = nil,
        transfer: TransferReading? = nil
    ) {
        self.time = time
        self.event = event
        self.reply = reply
        self.effect = effect
        self.budget = budget
        self.transfer = transfer
    }
}
