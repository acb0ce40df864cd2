/// When to try the D-Bus system bus again after the connection was lost: the first attempt
/// `first` milliseconds after the loss (a bus that restarts needs a moment to listen), each
/// failure doubling the wait up to `most`, a success starting over. Pure: the caller gives the
/// monotonic time, so every rule is tested without a clock.
struct ReconnectBackoff: Sendable, Hashable {
    /// The wait before the first attempt, in milliseconds.
    let first: Int64
    /// The longest wait between attempts, in milliseconds.
    let most: Int64
    /// The wait before the next attempt after this one fails.
    private(set) var delay: Int64
    /// When (monotonic milliseconds) to try next; `nil` while connected.
    private(set) var next: Int64?
    /// Attempts since the loss.
    private(set) var attempts = 0

    /// Connected; `first` and `most` in milliseconds (`most` at least `first`).
    init(first: Int64, most: Int64) {
        self.first = max(1, first)
        self.most = max(self.first, most)
        delay = self.first
    }

    /// The connection was lost at `now`: try after `first`.
    mutating func lost(at now: Int64) {
        delay = first
        attempts = 0
        next = now + delay
    }

    /// An attempt at `now` failed: wait twice as long as last time, at most `most`.
    mutating func failed(at now: Int64) {
        attempts += 1
        delay = min(delay * 2, most)
        next = now + delay
    }

    /// The bus's socket appeared at `now` (it was absent and its directory watched): try now,
    /// then as after a loss.
    mutating func appeared(at now: Int64) {
        delay = first
        attempts = 0
        next = now
    }

    /// The socket is absent and its directory watched: no attempt is due until it appears.
    mutating func awaiting() {
        next = nil
    }

    /// Connected again: no attempt is due.
    mutating func connected() {
        delay = first
        attempts = 0
        next = nil
    }

    /// Whether an attempt is due at `now`.
    func isDue(at now: Int64) -> Bool {
        guard let next else { return false }
        return now >= next
    }

    /// The `poll` timeout at `now`: milliseconds until the next attempt, `-1` (none) while
    /// connected, so a connected watcher never wakes on a timer.
    func timeout(at now: Int64) -> Int32 {
        guard let next else { return -1 }
        return Int32(clamping: max(0, next - now))
    }
}
