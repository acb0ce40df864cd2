public import BackgroundCore
public import BackgroundExecution
import BackgroundReports

/// Locks held at suspension (`0xdead10cc`).
///
/// iOS ends an app that is suspended while it holds a file lock in a shared container (an app
/// group), because the lock would block the other apps that share it. Before freezing an app
/// whose manifest lists `SharedContainers`, the process control looks for such locks
/// (`ProcessController.locksHeld(by:under:)`); if it finds any, the app is not frozen and the
/// engine tells the core `.terminate(app, .watchdog(.deadlock))`. The core's `.terminate`
/// effect then kills the process and the daemon writes the report, which lists the locks.
///
/// There are no expiration handlers left to run first: the core suspends an app only once it
/// holds no background task assertion and no expiration handler is running.
extension DaemonEngine {
    /// Ends `app` with `0xdead10cc` for holding `locks` when it was to be frozen. Nothing
    /// happens if the app is no longer suspended (it was resumed or ended meanwhile).
    public func suspendedHoldingLocks(_ app: AppID, _ locks: [TerminationReportDocument.HeldLock]) {
        let suspended = state.withLock { state -> Bool in
            guard state.core.state(of: app) == .suspended else { return false }
            state.locksAtSuspension[app] = locks
            return true
        }
        guard suspended else { return }
        logger.notice("\(app): suspended holding \(locks.count) lock(s) in its shared containers: 0xdead10cc")
        deliver(.terminate(app, .watchdog(.deadlock)))
    }

    /// The locks an app ended with `0xdead10cc` held, for its report (nil for other reports);
    /// forgotten once taken.
    func takeHeldLocks(for report: TerminationReport, in state: inout State) -> [TerminationReportDocument.HeldLock]? {
        guard let locks = state.locksAtSuspension.removeValue(forKey: report.app), report.code == .deadlock else {
            return nil
        }
        return locks
    }

    /// The text report's section naming the locks.
    static func heldLocksSection(_ locks: [TerminationReportDocument.HeldLock]?) -> String {
        guard let locks else { return "" }
        let lines = locks.map { "  " + ControlCharacters.escaped($0.description) }
        return "\nLocks held at suspension (in shared containers):\n" + lines.joined(separator: "\n") + "\n"
    }
}
