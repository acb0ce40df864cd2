import BackgroundCore
import BackgroundExecution

/// The queue of work on the virtual clock: the system's wake-ups, app code, the test's own
/// work, the battery's steps and the idle timer, run in (instant, scheduling order) order.
extension Simulator {
    func schedule(at instant: Instant, _ work: Job.Work) {
        nextSequence += 1
        queue.insert(Job(at: max(instant, now), sequence: nextSequence, work: work))
    }

    func execute(_ job: Job) {
        switch job.work {
        case .wakeCore:
            guard armedWakeup == job.at else { return }  // replaced by a later deadline
            armedWakeup = nil
            guard deviceState.isOn else { return }
            send(.tick)
        case .app(let process, let work):
            runAppJob(process, work)
        case .driver(let work):
            closeMainQueueTurn()  // the test's own code is no app's
            work()
        case .batteryStep(let generation):
            batteryStep(generation)
        case .idle(let generation):
            guard generation == idleGeneration, deviceState.isLocked, !deviceState.isIdle else { return }
            changeDevice(.idle(true)) { $0.isIdle = true }
        case .transfers(let generation):
            transferEngine?.fire(generation)
        }
    }

    /// Runs app work if its process is alive and not frozen; frozen work waits for the resume.
    func runAppJob(_ process: AppProcess, _ work: @escaping @MainActor () -> Void) {
        guard process.isAlive else { return }
        if process.isFrozen {
            process.deferred.append(work)
            return
        }
        if process.mainThreadFreeAt > now {
            schedule(at: process.mainThreadFreeAt, .app(process, work))  // the main thread is busy
            return
        }
        runAppCode(process, work)
    }

    /// Runs `call` as the app's main-actor code now, behind what is queued (dropped if the app
    /// has no process): a background session's delegate calls.
    func runAsAppCode(_ app: AppID, _ call: @escaping @Sendable () -> Void) {
        guard let process = processes[app], process.isAlive else { return }
        schedule(at: now, .app(process, { call() }))
    }

    /// Runs app code with `UIApplication.shared` answering the process's application: there,
    /// in the `Task`s it starts (a task-local value they inherit) and in the blocks it queues on
    /// the main queue during this turn (a mark in the main queue).
    func runAppCode(_ process: AppProcess, _ work: () -> Void) {
        checker.appCodeRuns(process.app, state: core.state(of: process.app), at: now)
        openMainQueueTurn(process.application)
        publish(process)
        let previous = currentProcess
        currentProcess = process
        defer { currentProcess = previous }
        UIApplication.$running.withValue(process.application, operation: work)
    }
}

/// Work waiting for its instant.
struct Job: Comparable {
    enum Work {
        /// The system's next deadline.
        case wakeCore
        /// App code, belonging to a process.
        case app(AppProcess, @MainActor () -> Void)
        /// The test's or the scenario's own work.
        case driver(@MainActor () -> Void)
        /// The battery reaches its next step.
        case batteryStep(UInt64)
        /// The locked device becomes idle.
        case idle(UInt64)
        /// The transfer engine's next event (``TransferSimulation``).
        case transfers(UInt64)
    }

    let at: Instant
    let sequence: UInt64
    let work: Work

    static func < (lhs: Job, rhs: Job) -> Bool { (lhs.at, lhs.sequence) < (rhs.at, rhs.sequence) }
    static func == (lhs: Job, rhs: Job) -> Bool { lhs.sequence == rhs.sequence }
}

/// An app's remaining background time and whether it is going down.
struct BudgetSample: Hashable {
    let remaining: Duration
    let depleting: Bool
}
