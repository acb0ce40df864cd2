public import BackgroundCore

extension Effect {
    /// The effect as one line of a log, or `nil` for bookkeeping that is not worth a line
    /// (wake-up timers, store writes, answers the caller already has).
    public var logLine: String? {
        switch self {
        case .assertionDenied(_, let name, let reason): return "\"\(name)\" not granted (\(reason))"
        case .assertionRevoked(_, let id, let reason): return "#\(id.rawValue) revoked (\(reason))"
        case .runExpirationHandler(_, let id): return "calling the expiration handler of #\(id.rawValue)"
        case .stateChanged(_, let from, let to): return "\(from) → \(to)"
        case .exit(_, let status, _): return "process exits with status \(status)"
        case .terminate(_, let report): return report.logLine
        case .backgroundRefreshStatusChanged(_, let status): return "Background App Refresh \(status)"
        // The core's own summary of a watchdog kill comes right before `.terminate`, whose
        // line says it all (with the leaked tasks' names): one line per termination.
        case .log(let record) where record.level >= .notice && !record.message.hasPrefix("terminated with "):
            return record.message
        case .runTasks(_, let runs):
            return "runs " + runs.map { "\"\($0.request.identifier)\" (\($0.request.kind))" }.joined(separator: ", ")
        case .expireTask(_, let id): return "expiring \(id)"
        case .taskFinished(_, let id, let outcome): return "\(id) \(outcome.rawValue)"
        case .fault(_, let message): return "fault: \(message)"
        case .launch(_, let reason, let incarnation): return "launch (\(reason.rawValue), \(incarnation))"
        case .log, .suspend, .scheduleWakeup, .cancelWakeup, .deliverDidEnterBackground, .deliverBackgroundWake,
            .persist, .resume, .modeChanged,  // the core's own notice says it, with the duration
            .powerStateChanged:  // the device change says it
            return nil
        }
    }
}

extension Reply {
    /// The reply as one line of a log, or `nil` where the app's own call already says it.
    public var logLine: String? {
        switch self {
        case .granted(let id): return "assertion #\(id.rawValue) granted"
        case .accepted(let request):
            let after = request.earliestBegin.map { ", not before \($0)" } ?? ""
            return "accepted \"\(request.identifier)\" (\(request.kind))\(after)"
        case .refused(let identifier): return "register(\"\(identifier)\") refused"
        case .denied, .registered, .rejected, .modeHeld, .modeNotHeld: return nil  // the core's warning says it
        }
    }
}

extension TerminationReport {
    /// The termination as one log line: the code and reason, and every task still held or not
    /// completed, by name and where it began.
    public var logLine: String {
        let code = self.code.map { " \($0)" } ?? ""
        var line = "terminated\(code): \(reason == .watchdog(.watchdogTimeout) ? explanation : "\(reason)")"
        if !leakedAssertions.isEmpty {
            line +=
                "; leaked "
                + leakedAssertions.map {
                    "\"\($0.name)\" (#\($0.id.rawValue), begun at \($0.origin.fileID):\($0.origin.line))"
                }
                .joined(separator: ", ")
        }
        if !uncompletedTasks.isEmpty {
            line +=
                "; not completed "
                + uncompletedTasks.map { "\"\($0.identifier)\" (\($0.kind))" }.joined(separator: ", ")
        }
        return line
    }
}
