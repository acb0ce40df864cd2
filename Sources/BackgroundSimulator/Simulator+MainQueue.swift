import BackgroundExecution
import Dispatch

/// The main queue: what app code queues there (`DispatchQueue.main.async { … }`, a main-actor
/// `Task { … }`) runs as that app, and ``run(for:)`` lets it run in virtual time.
extension Simulator {
    /// Moves time forward by `duration`, like ``advance(by:)``, and after each piece of work
    /// lets the main queue run what was queued there: the blocks app code queues with
    /// `DispatchQueue.main.async` and the `Task`s it starts run at the virtual instant they
    /// were queued, as on a device where the main queue turns at once.
    ///
    /// ```swift
    /// simulator.user.goHome()
    /// await simulator.run(for: .seconds(60))   // the wrapper's hop to the main queue ends its task in time
    /// #expect(simulator.reports.isEmpty)
    /// ```
    ///
    /// With ``advance(by:)`` (synchronous) such blocks and tasks wait until the test itself
    /// lets the main actor go (its next `await`), and reach the system at the instant the
    /// simulator has reached then. Work that leaves the main actor (another actor, a
    /// background queue) comes back when its thread is done, at whatever virtual instant the
    /// simulator has reached: the one source of nondeterminism (see ``CallInbox``).
    public func run(for duration: Duration) async {
        let end = now + duration
        await drainMainQueue()
        while step(until: end) != nil {
            await drainMainQueue()
        }
        now = max(now, end)
        publishTime()
        closeMainQueueTurn()
    }

    /// Lets the main queue run what is queued there now, at the current instant, and what that
    /// queues in turn while it calls the system: rounds until one where no app code called the
    /// system (at least two, at most ``maximumMainQueueRounds``).
    public func runMainQueue() async {
        closeMainQueueTurn()
        await drainMainQueue()
    }

    /// How many rounds of the main queue one ``runMainQueue()`` lets run at most.
    public static let maximumMainQueueRounds = 16

    private func drainMainQueue() async {
        closeMainQueueTurn()
        var round = 0
        while round < Self.maximumMainQueueRounds {
            let before = systemEventCount
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.main.async { continuation.resume() }
            }
            if inbox.hasCalls { inbox.drain(into: self) }
            round += 1
            if round >= 2 && systemEventCount == before { break }
        }
        // Back on the test's task: faults raised in the blocks fail the test now.
        if !heldFaults.isEmpty { reportHeldFaults() }
    }

    /// Publishes the simulator's time for app code's threads (``CallInbox/now``).
    func publishTime() {
        if servesAppThreads { inbox.publish(now) }
    }

    /// Marks the start of an app's turn in the main queue, unless its turn is open already.
    func openMainQueueTurn(_ application: UIApplication) {
        guard servesAppThreads, mainQueueTurn !== application else { return }
        mainQueueTurn = application
        UIApplication.markMainQueueTurn(application)
    }

    /// Marks the end of the open turn: blocks queued from here on are no app's.
    func closeMainQueueTurn() {
        guard mainQueueTurn != nil else { return }
        mainQueueTurn = nil
        UIApplication.markMainQueueTurn(nil)
    }
}
