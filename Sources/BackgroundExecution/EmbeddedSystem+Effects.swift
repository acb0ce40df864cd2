import BackgroundCore
import Foundation
import Logging

extension EmbeddedSystem {
    /// Carries out effects, in order, outside the state lock.
    func perform(_ effects: [Effect], at now: Instant) {
        guard !effects.isEmpty else { return }
        // Durable changes first, in one transaction, before anything is answered or run.
        persist(effects.compactMap { if case .persist(let change) = $0 { change } else { nil } })
        for effect in effects {
            effectObserver?(now, effect)
            perform(effect)
        }
    }

    private func perform(_ effect: Effect) {
        switch effect {
        case .assertionGranted, .assertionDenied:
            break  // answered synchronously by beginAssertion
        case .runExpirationHandler(_, let id):
            runExpirationHandler(id)
        case .deliverDidEnterBackground:
            let application = state.withLock { $0.application }
            onMainActor { [weak self] in
                application?.deliverDidEnterBackground()
                guard let self else { return }
                self.deliver(.didEnterBackgroundReturned(self.app))
            }
        case .deliverBackgroundWake:
            let application = state.withLock { $0.application }
            onMainActor { [weak self] in
                application?.deliverBackgroundWake()
                guard let self else { return }
                self.deliver(.backgroundWakeReturned(self.app))
            }
        case .stateChanged(_, let from, let to):
            configuration.logger.info("\(app): \(from) → \(to)")
            let application = state.withLock { $0.application }
            onMainActor { application?.deliverTransition(from: from, to: to) }
        case .suspend:
            configuration.logger.notice("\(app) suspended: no background task is running")
        case .exit(_, let status, let report):
            finish(status: status, report: report)
        case .terminate(_, let report):
            finish(status: Self.exitStatus(for: report.reason), report: report)
        case .backgroundRefreshStatusChanged:
            let application = state.withLock { $0.application }
            onMainActor { application?.deliverBackgroundRefreshStatusChange() }
        case .scheduleWakeup(let at):
            scheduleWakeup(at: at)
        case .cancelWakeup:
            cancelWakeup()
        case .log(let record):
            configuration.logger.log(level: record.level.swiftLogLevel, "\(record.message)")
        case .taskHandlerRegistered, .taskHandlerRefused, .taskRequestAccepted, .taskRequestRejected:
            break  // answered synchronously by the BGTaskScheduler call that caused them
        case .fault(_, let message):
            BackgroundFault.raise(BackgroundFault(api: "BGTaskScheduler", message: message))
        case .runTasks(_, let runs):
            deliverTaskRuns(runs)
        case .expireTask(_, let id):
            expireTaskRun(id)
        case .taskFinished(_, let id, let outcome):
            configuration.logger.info("\(app): \(id) finished: \(outcome.rawValue)")
        case .persist:
            break  // written first, in one transaction, by perform(_:at:)
        }
    }

    private func runExpirationHandler(_ id: AssertionID) {
        let handler = state.withLock { $0.handlers.remove(id) }
        onMainActor { [weak self] in
            handler?()
            guard let self else { return }
            self.deliver(.expirationHandlerReturned(self.app, id))
        }
    }

    /// Runs `job` on the main actor: enqueued on the real main actor, or on the manual clock at
    /// the current virtual instant (it then runs inside the next `advance`).
    func onMainActor(_ job: @escaping @MainActor @Sendable () -> Void) {
        switch configuration.clock {
        case .continuous:
            Task { @MainActor in job() }
        case .manual(let clock):
            clock.schedule(at: clock.now, job)
        }
    }

    private func scheduleWakeup(at instant: Instant) {
        cancelWakeup()
        switch configuration.clock {
        case .continuous:
            let deadline = ContinuousClock.now + (instant - now)
            let task = Task.detached { [weak self] in
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                } catch {
                    return  // cancelled: a newer wake-up replaced this one
                }
                self?.deliver(.tick)
            }
            state.withLock { $0.timerTask = task }
        case .manual(let clock):
            let token = clock.schedule(at: instant) { [weak self] in self?.deliver(.tick) }
            state.withLock { $0.timerToken = token }
        }
    }

    private func cancelWakeup() {
        let (task, token) = state.withLock { state in
            defer {
                state.timerTask = nil
                state.timerToken = nil
            }
            return (state.timerTask, state.timerToken)
        }
        task?.cancel()
        if let token, case .manual(let clock) = configuration.clock { clock.cancel(token) }
    }

    static func exitStatus(for reason: TerminationReason) -> Int32 {
        switch reason {
        case .exited(let status): return status
        case .watchdog: return watchdogExitStatus
        case .userForceQuit: return 128 + 15  // as if ended by SIGTERM's default action
        case .systemReclaimed: return 128 + 9
        }
    }

    /// Ends the app: records or publishes the report, then exits the process if configured to.
    private func finish(status: Int32, report: TerminationReport) {
        state.withLock { $0.reports.append(report) }
        if !report.isClean { publish(report) }
        guard case .exitProcess = configuration.terminationBehavior else { return }
        configuration.logger.notice("\(app) exiting with status \(status)")
        ProcessControl.exit(status)
    }
}

extension LogRecord.Level {
    var swiftLogLevel: Logger.Level {
        switch self {
        case .debug: return .debug
        case .info: return .info
        case .notice: return .notice
        case .warning: return .warning
        case .error: return .error
        }
    }
}
