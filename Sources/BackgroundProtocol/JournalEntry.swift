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

    /// Creates an entry.
    public init(time: Double, event: Event? = nil, reply: Reply? = nil, effect: Effect? = nil) {
        self.time = time
        self.event = event
        self.reply = reply
        self.effect = effect
    }
}
