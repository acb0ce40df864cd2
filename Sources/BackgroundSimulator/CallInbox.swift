import BackgroundCore
import BackgroundExecution
import Dispatch
import Synchronization

/// Calls simulated app code makes from a real background thread (a `DispatchQueue.global()`
/// block, a detached task, another actor, `performExpiringActivity`'s block), waiting for the
/// simulator.
///
/// The simulator lives on the main actor. A call from another thread is queued here and
/// applied on the main actor at the simulator's next step, or by a block on the main queue when
/// the simulator is idle: at the virtual instant it arrives, which depends on how the threads
/// ran. It is the one source of nondeterminism a run can have.
///
/// No thread ever waits here for the main actor: a call that answers is answered on its own
/// thread from what the simulator last published (``now``, and each process's state in its
/// `SimulatedConnection`), and an answer that needs the simulator itself arrives later, by a
/// completion handler. Code that holds a lock the main actor needs, or a main actor that
/// waits synchronously for such a thread (`DispatchQueue.global().sync { … }`), therefore
/// never deadlocks, as on a device. A simulator that has gone drops the calls still queued.
final class CallInbox: Sendable {
    typealias Call = @MainActor @Sendable (Simulator) -> Void

    private struct State {
        var calls: [Call] = []
        var isOpen = true
        var drainQueued = false
        weak var simulator: Simulator?
    }

    private let state = Mutex(State())
    private let waiting = Atomic<Bool>(false)
    private let published = Mutex(Instant.zero)

    /// The test that created the simulator (``Simulator/faultOwner``).
    let owner: String?

    init(simulator: Simulator, owner: String?) {
        self.owner = owner
        state.withLock { $0.simulator = simulator }
    }

    /// The simulator, while it exists.
    var simulator: Simulator? { state.withLock { $0.simulator } }

    /// Whether calls wait (a cheap check for the simulator's every step).
    var hasCalls: Bool { waiting.load(ordering: .acquiring) }

    /// Queues a call that needs no answer; dropped if the simulator has gone.
    func post(_ call: @escaping Call) {
        enqueue(call)
    }

    private func enqueue(_ call: @escaping Call) {
        let queueDrain = state.withLock { state -> Bool? in
            guard state.isOpen else { return nil }
            state.calls.append(call)
            defer { state.drainQueued = true }
            return !state.drainQueued
        }
        guard let queueDrain else { return }
        waiting.store(true, ordering: .releasing)
        if queueDrain {
            // The simulator may be idle (a test awaiting): the main queue applies the call then.
            DispatchQueue.main.async { [self] in
                MainActor.assumeIsolated {
                    guard let simulator = self.simulator else { return }
                    drain(into: simulator)
                }
            }
        }
    }

    /// Applies the waiting calls, in the order they arrived.
    @MainActor func drain(into simulator: Simulator) {
        while true {
            let calls = state.withLock { state -> [Call] in
                defer {
                    state.calls = []
                    state.drainQueued = false
                }
                return state.calls
            }
            waiting.store(false, ordering: .releasing)
            guard !calls.isEmpty else { return }
            for call in calls { call(simulator) }
        }
    }

    /// The simulator has gone: the calls still queued, and later ones, are dropped.
    func close() {
        state.withLock { state in
            state.isOpen = false
            state.calls = []
        }
        waiting.store(false, ordering: .releasing)
    }

    /// The simulator's time, as its app code's threads read it (``publish(_:)``).
    var now: Instant { published.withLock { $0 } }

    /// Publishes the simulator's time for calls off the main actor (`Date` conversions, the
    /// background time remaining).
    func publish(_ now: Instant) {
        published.withLock { $0 = now }
    }
}
