import BackgroundCore
import Dispatch
import Foundation
package import Logging

extension EmbeddedSystem {
    /// Carries out effects, in order, outside the state lock.
    ///
    /// - Parameter deniedHandler: The expiration handler of the begin these effects answer, which
    ///   its `.assertionDenied` calls.
    func perform(
        _ effects: [Effect],
        at now: Instant,
        deniedHandler: (@MainActor @Sendable () -> Void)? = nil
    ) {
        guard !effects.isEmpty else { return }
        // Durable changes were written before the state was unlocked (persistBuffered).
        for effect in effects {
            effectObserver?(now, effect)
            perform(effect)
            carryOut(effect, deniedHandler: deniedHandler)  // the app runtime's part
        }
    }

    private func perform(_ effect: Effect) {
        switch effect {
        case .launch(_, let reason, let incarnation):
            configuration.logger.info("\(app): launched (\(reason.rawValue), \(incarnation))")
        case .stateChanged(_, let from, let to):
            configuration.logger.info("\(app): \(from) → \(to)")
            if from == .suspended && to.hasProcess && to != .suspended { flushTransferEvents() }  // held meanwhile
        case .assertionDenied, .assertionRevoked, .resume, .runExpirationHandler, .deliverDidEnterBackground,
            .deliverBackgroundWake,
            .backgroundRefreshStatusChanged, .runTasks, .expireTask, .powerStateChanged:
            break  // the app runtime's (carryOut); a process cannot freeze itself, so there is nothing to resume
        case .suspend:
            configuration.logger.notice("\(app) suspended: no background task is running")
        case .exit(_, let status, let report):
            finish(status: status, report: report)
        case .terminate(_, let report):
            finish(status: Self.exitStatus(for: report.reason), report: report)
        case .scheduleWakeup, .cancelWakeup:
            syncWakeup()  // from the core's current deadline, not this effect's: effects can arrive out of order
        case .log(let record):
            configuration.logger.log(level: record.level.swiftLogLevel, "\(ControlCharacters.escaped(record.message))")
        case .fault(_, let message):
            raise(BackgroundFault(api: "BGTaskScheduler", message: message, app: app))
        case .taskFinished(_, let id, let outcome):
            configuration.logger.info("\(app): \(id) finished: \(outcome.rawValue)")
        case .modeChanged(_, let mode, let held):
            configuration.logger.info("\(app): '\(mode)' \(held ? "held" : "ended")")
        case .persist:
            break  // written before the state was unlocked, by persistBuffered
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

    /// Keeps the one timer in step with the core's next deadline.
    ///
    /// Effects are carried out outside the lock, so two threads can carry out wake-up effects
    /// in the opposite order from the core's; reading the deadline under the lock instead makes
    /// the last call right whatever the order. Called after every wake-up effect and after
    /// every timer firing.
    func syncWakeup() {
        let replaced = state.withLock { state -> (Task<Void, Never>?, ManualClock.Token?) in
            let wanted = state.core.nextDeadline
            guard wanted != state.timerDeadline else { return (nil, nil) }
            let old = (state.timerTask, state.timerToken)
            state.timerDeadline = wanted
            state.timerTask = nil
            state.timerToken = nil
            if let wanted { arm(&state, at: wanted) }
            return old
        }
        replaced.0?.cancel()
        if let token = replaced.1 { manualClock?.cancel(token) }
    }

    private func arm(_ state: inout State, at instant: Instant) {
        if let manualClock {
            state.timerToken = manualClock.schedule(at: instant) { [weak self] in self?.timerFired(at: instant) }
            return
        }
        let deadline = ContinuousClock.now + (instant - now)
        state.timerTask = Task.detached { [weak self] in
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return  // cancelled: a newer deadline replaced this one
            }
            self?.timerFired(at: instant)
        }
    }

    private func timerFired(at instant: Instant) {
        state.withLock { state in
            if state.timerDeadline == instant {
                state.timerDeadline = nil
                state.timerTask = nil
                state.timerToken = nil
            }
        }
        deliver(.tick)
        syncWakeup()
    }

    /// The exit status of a process whose app ended for `reason`: its own status for an exit,
    /// ``watchdogExitStatus`` (70) for a watchdog termination, 143 for a force quit and 137 for
    /// a reclaim (as if ended by SIGTERM's and SIGKILL's default actions).
    package static func exitStatus(for reason: TerminationReason) -> Int32 {
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
        configuration.terminationObserver?(report)
        guard case .exitProcess = configuration.terminationBehavior else { return }
        exitProcess(status: status)
    }

    /// Ends the process as ``TerminationBehavior/exitProcess`` does: writes what the store still
    /// holds, logs the status and exits at once (see `ProcessControl.exit`).
    package func exitProcess(status: Int32) -> Never {
        closeStore()
        configuration.logger.notice("\(app) exiting with status \(status)")
        ProcessControl.exit(status)
    }
}

extension LogRecord.Level {
    package var swiftLogLevel: Logger.Level {
        switch self {
        case .debug: return .debug
        case .info: return .info
        case .notice: return .notice
        case .warning: return .warning
        case .error: return .error
        }
    }
}

// MARK: The app runtime's transport

extension EmbeddedSystem {
    package func withTables<Result: Sendable>(_ body: (inout RuntimeTables) -> Result) -> Result {
        state.withLock { body(&$0.tables) }
    }

    package func runOnMainActor(_ job: @escaping @MainActor @Sendable () -> Void, report: Event?) {
        onMainActor { [weak self] in
            job()
            if let report { self?.deliver(report) }
        }
    }

    package func runTaskCode(on queue: DispatchQueue?, _ job: @escaping @Sendable () -> Void) {
        (queue ?? .global()).async(execute: job)
    }

    package func launchCallbacksDelivered() {
        // The launch ends as ``Configuration/launchCompletion`` says, not with the callbacks.
    }
}
