import BackgroundCore
import Dispatch
import Foundation

extension DaemonConnection {
    /// Carries out effects the daemon pushed or answered with, in order: the app runtime's part
    /// (``RuntimeHost/carryOut(_:deniedHandler:)``), then this transport's own.
    ///
    /// - Parameter deniedHandler: The expiration handler of the begin these effects answer, which
    ///   its `.assertionDenied` calls.
    func perform(_ effects: [Effect], deniedHandler: (@MainActor @Sendable () -> Void)? = nil) {
        guard !effects.isEmpty else { return }
        let observer = configuration.effectObserver
        let now = observer == nil ? nil : self.now
        for effect in effects {
            if let observer, let now { observer(now, effect) }
            switch effect {
            case .launch:
                continue  // this process is the launch; a new one would have its own connection
            case .backgroundRefreshStatusChanged(_, let status):
                state.withLock { $0.view.refreshStatus = status }
            case .powerStateChanged(_, let lowPowerMode):
                state.withLock { $0.view.lowPowerMode = lowPowerMode }
            default:
                break
            }
            if carryOut(effect, deniedHandler: deniedHandler) { continue }
            switch effect {
            case .fault(_, let message):
                BackgroundFault.raise(BackgroundFault(api: "BGTaskScheduler", message: message))
            case .exit(_, let status, let report):
                end(status: status, report: report)
            case .terminate(_, let report):
                end(status: EmbeddedSystem.exitStatus(for: report.reason), report: report)
            case .log(let record):
                logger.log(level: record.level.swiftLogLevel, "\(ControlCharacters.escaped(record.message))")
            default:
                break  // the daemon's business (suspension, timers, the store)
            }
        }
    }

    /// The daemon ended this process: it exits with the status (the report is the daemon's to
    /// write), or, under ``EmbeddedSystem/TerminationBehavior/record``, keeps the report and
    /// stops connecting.
    private func end(status: Int32, report: TerminationReport) {
        state.withLock { state in
            state.ended = true
            state.reports.append(report)
        }
        guard case .exitProcess = configuration.terminationBehavior else { return }
        logger.notice("\(app): ended by backgroundd, exiting with status \(status)")
        // After the main-actor work the same push queued before it: the end's lifecycle change
        // (`applicationWillTerminate(_:)`, `willTerminateNotification`) runs first, as on iOS,
        // where the process ends when that callback returns. An app whose main actor never gets
        // there is killed by the daemon (at once for a watchdog termination; after
        // `DaemonEngine.willTerminateTimeLimit` when the daemon stops).
        DispatchQueue.main.async { ProcessControl.exit(status) }
    }
}

// MARK: The app runtime's transport

extension DaemonConnection {
    package func withTables<Result: Sendable>(_ body: (inout RuntimeTables) -> Result) -> Result {
        state.withLock { body(&$0.tables) }
    }

    /// App code runs on the main actor, in the order the daemon decided it: the main queue
    /// runs blocks in the order they were added. The callback's return is then sent one way.
    package func runOnMainActor(_ job: @escaping @MainActor @Sendable () -> Void, report: Event?) {
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated { job() }
            if let report { self?.sendOneWay(report) }
        }
    }

    package func runTaskCode(on queue: DispatchQueue?, _ job: @escaping @Sendable () -> Void) {
        (queue ?? .global()).async(execute: job)
    }

    package func launchCallbacksDelivered() {
        // The launch ends as ``Configuration/launchCompletion`` says, not with the callbacks.
    }
}
