public import BackgroundCore
import Synchronization

/// Virtual time for tests and demos: it stands still until you advance it.
///
/// Work scheduled on it runs on the main actor when the clock is advanced past its instant, in
/// (instant, scheduling order) order, as swift-nio's `EmbeddedEventLoop` runs its tasks. An
/// ``EmbeddedSystem`` built on a manual clock schedules its own timers and main-actor work
/// (expiration handlers, delegate calls, notifications) here too, so a whole background
/// session replays identically, event for event, in microseconds.
///
/// ```swift
/// let clock = ManualClock()
/// clock.schedule(after: .seconds(20)) { print("upload finished") }
/// await clock.advance(by: .seconds(30))   // prints at T+20 s
/// ```
public final class ManualClock: Sendable {
    /// A handle for cancelling scheduled work.
    public struct Token: Hashable, Sendable {
        fileprivate let sequence: UInt64
    }

    private struct Job {
        let at: Instant
        let sequence: UInt64
        let action: @MainActor @Sendable () -> Void
    }

    private struct State {
        var now: Instant = .zero
        var jobs: [Job] = []
        var nextSequence: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Creates a clock that reads `start`.
    public init(start: Instant = .zero) {
        state.withLock { $0.now = start }
    }

    /// The current virtual instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The number of jobs waiting to run.
    public var pendingCount: Int { state.withLock { $0.jobs.count } }

    /// Schedules `action` to run on the main actor once the clock reaches `instant`.
    @discardableResult
    public func schedule(at instant: Instant, _ action: @escaping @MainActor @Sendable () -> Void) -> Token {
        state.withLock { state in
            state.nextSequence += 1
            state.jobs.append(Job(at: max(instant, state.now), sequence: state.nextSequence, action: action))
            return Token(sequence: state.nextSequence)
        }
    }

    /// Schedules `action` to run on the main actor `delay` from now.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @MainActor @Sendable () -> Void) -> Token {
        schedule(at: now + delay, action)
    }

    /// Cancels scheduled work that has not run yet.
    public func cancel(_ token: Token) {
        state.withLock { $0.jobs.removeAll { $0.sequence == token.sequence } }
    }

    /// Moves time forward by `duration`, running every job that falls due on the way.
    @MainActor
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves time forward to `instant`, running every job that falls due on the way, each at its
    /// own instant. Time never goes backwards.
    @MainActor
    public func advance(to instant: Instant) {
        while let job = takeNextJob(dueBy: instant) {
            job.action()
        }
        state.withLock { $0.now = max($0.now, instant) }
    }

    /// Runs every job due now (work scheduled "immediately") without moving time.
    @MainActor
    public func runPending() {
        advance(to: now)
    }

    private func takeNextJob(dueBy limit: Instant) -> Job? {
        state.withLock { state in
            guard let index = state.jobs.indices.min(by: { earlier(state.jobs[$0], state.jobs[$1]) }),
                state.jobs[index].at <= limit
            else { return nil }
            let job = state.jobs.remove(at: index)
            state.now = max(state.now, job.at)
            return job
        }
    }

    private func earlier(_ lhs: Job, _ rhs: Job) -> Bool {
        (lhs.at, lhs.sequence) < (rhs.at, rhs.sequence)
    }
}
