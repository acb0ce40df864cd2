public import BackgroundCore
import Synchronization

/// Arms the daemon's one timer at the core's next deadline (``Effect/scheduleWakeup(at:)``).
public protocol WakeupScheduler: Sendable {
    /// Replaces any armed wake-up with one at `deadline` (nil: none); at the deadline, calls
    /// `engine.tick()`.
    func arm(at deadline: Instant?, engine: DaemonEngine)
}

/// A task that sleeps on the continuous clock until the deadline: no polling, so a daemon with
/// nothing due uses no CPU.
final class TaskWakeups: WakeupScheduler {
    private let armed = Mutex<(deadline: Instant?, task: Task<Void, Never>?)>((nil, nil))

    func arm(at deadline: Instant?, engine: DaemonEngine) {
        let old = armed.withLock { armed -> Task<Void, Never>? in
            guard armed.deadline != deadline else { return nil }
            let old = armed.task
            armed.deadline = deadline
            armed.task = deadline.map { deadline in
                let wait = deadline - engine.now
                return Task.detached { [weak engine] in
                    do {
                        try await Task.sleep(for: max(wait, .zero))
                    } catch {
                        return  // replaced by a newer deadline
                    }
                    guard let engine else { return }
                    engine.timerFired(at: deadline)
                }
            }
            return old
        }
        old?.cancel()
    }

    func clear(ifArmedAt deadline: Instant) {
        armed.withLock { if $0.deadline == deadline { $0 = (nil, nil) } }
    }
}

extension DaemonEngine {
    /// The timer armed at `deadline` fired.
    func timerFired(at deadline: Instant) {
        (wakeups as? TaskWakeups)?.clear(ifArmedAt: deadline)
        tick()
        rearmWakeup()
    }

    /// Arms the one timer at the next deadline (after something other than the core's effects
    /// moved one: a wake for transfer events).
    func rearmWakeup() {
        wakeups.arm(at: state.withLock { nextWake(in: $0) }, engine: self)
    }
}
