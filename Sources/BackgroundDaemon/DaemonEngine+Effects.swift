import BackgroundCore
import BackgroundExecution
import BackgroundPosix
import BackgroundProtocol
import BackgroundReports
import Foundation
import Logging

extension DaemonEngine {
    /// Carries out one effect: the daemon's part, and for app-addressed effects a push to the
    /// app's connection.
    func carryOut(_ effect: Effect, in state: inout State, outbox: inout Outbox) {
        if let app = effect.audienceApp {
            if let id = state.appLinks[app], let session = state.sessions[id] {
                outbox.send(.system(.pushed([effect])), to: session.link)
            } else if state.awaitingConnection[app] != nil {
                state.awaitingConnection[app]?.append(effect)
            }
        }
        carryOutSystemPart(effect, in: &state, outbox: &outbox)
    }

    /// The daemon's own part of an effect: processes, timers, logs, reports.
    func carryOutSystemPart(_ effect: Effect, in state: inout State, outbox: inout Outbox) {
        switch effect {
        case .launch(let app, let reason, let incarnation):
            launchProcess(app, reason: reason, incarnation: incarnation, in: &state)
        case .resume(let app, _):
            processes.thaw(app)
        case .suspend(let app):
            processes.freeze(app)
            logger.info("\(app): suspended")
        case .exit(let app, let status, _):
            logger.info("\(app): exits with status \(status)")
            endProcess(app, in: &state, outbox: &outbox, reason: "the app exited")
        case .terminate(let app, let report):
            if !report.isClean { writeReport(report, in: &state) }
            endProcess(app, in: &state, outbox: &outbox, reason: "the system ended the app")
        case .scheduleWakeup, .cancelWakeup:
            wakeups.arm(at: nextWake(in: state), engine: self)
        case .log(let record):
            let line = "\(record.app.map { "\($0): " } ?? "")\(ControlCharacters.escaped(record.message))"
            logger.log(level: record.level.swiftLogLevel, "\(line)")
            publishLogLine(line, in: &state, outbox: &outbox)
        case .taskFinished(let app, let run, let outcome):
            logger.info("\(app): \(run) finished: \(outcome.rawValue)")
        case .stateChanged(let app, let from, let to):
            let line = "\(app): \(from) → \(to)"
            logger.info("\(line)")
            publishLogLine(line, in: &state, outbox: &outbox)
        case .fault(let app, let message):
            logger.warning("\(app): fault: \(ControlCharacters.escaped(message))")
        case .modeChanged(let app, let mode, let held):
            // The core never suspends an app while it holds a mode, so the freezer follows `.suspend`.
            logger.info("\(app): '\(mode)' \(held ? "held" : "ended")")
        case .assertionDenied, .assertionRevoked, .runExpirationHandler, .deliverDidEnterBackground,
            .deliverBackgroundWake,
            .backgroundRefreshStatusChanged, .runTasks, .expireTask, .persist, .powerStateChanged:
            break  // the app runtime's (pushed or answered), or written before carrying out
        }
    }

    private func launchProcess(_ app: AppID, reason: LaunchReason, incarnation: Incarnation, in state: inout State) {
        if state.stopping {
            logger.notice("\(app): not launched: the daemon is stopping")
            return
        }
        if state.connecting.contains(app) {
            return  // the process that connected is this launch (started by the user, or taken over)
        }
        if state.adopting.contains(app) {
            return  // the survivor of the previous run is this launch (DaemonEngine+Restart.swift)
        }
        guard let installed = state.installed[app] else {
            logger.error("\(app): cannot be launched: not installed")
            return
        }
        do {
            state.awaitingConnection[app] = []  // what follows the launch waits for its hello
            try processes.launch(installed, reason: reason, incarnation: incarnation)
            state.started.insert(app)
            logger.info("\(app): launched (\(reason.rawValue), \(incarnation))")
        } catch {
            state.awaitingConnection[app] = nil
            state.launchesFailed += 1
            logger.error("\(app): launch (\(reason.rawValue)) failed: \(error)")
        }
    }

    /// Ends the app's process: kills it if the daemon started it, and closes its connection.
    private func endProcess(_ app: AppID, in state: inout State, outbox: inout Outbox, reason: String) {
        // A process the user started is ended like one the daemon started (its connection's
        // close lets it go before, so an app that exited is not killed again).
        // A stopping daemon lets the process exit after applicationWillTerminate; the stop kills
        // it if it does not (``DaemonEngine/endStartedApps(within:)``).
        let ours = state.started.remove(app) != nil || state.admitted.remove(app) != nil
        if ours && !state.stopping { processes.kill(app) }
        state.notFrozen[app] = nil
        state.awaitingConnection[app] = nil
        state.redeclarable[app] = nil  // a survivor's: the next process registers for itself
        state.restartGraces[app] = nil
        state.adopted[app] = nil
        if let id = state.appLinks.removeValue(forKey: app), let session = state.sessions.removeValue(forKey: id) {
            outbox.close(session.link, reason: reason)
        }
    }

    /// Sends a line to the connections that follow the log, and keeps it among the recent ones
    /// (`bgctl daemon log` without `--follow` prints those).
    private func publishLogLine(_ line: String, in state: inout State, outbox: inout Outbox) {
        state.recentLog.append(line)
        if state.recentLog.count > Self.recentLogLines { state.recentLog.removeFirst(state.recentLog.count / 2) }
        for id in state.sessions.keys.sorted() {
            guard let session = state.sessions[id], case .control(followsLog: true) = session.role else { continue }
            outbox.send(.logLine(line), to: session.link)
        }
    }

    /// Writes the report as `<app>-<incident>-<time>.txt` and `.json` (mode 0600) in the reports
    /// directory. Failures are logged, never fatal.
    private func writeReport(_ report: TerminationReport, in state: inout State) {
        guard let path = configuration.reportsDirectory else { return }
        let date = Date(timeIntervalSince1970: wallClock.unixSeconds(of: report.at))
        do {
            let process = TerminationReport.ProcessInfo(
                processName: report.app.bundleIdentifier,
                wallClockTime: ISO8601DateFormatter().string(from: date)
            )
            let locks = takeHeldLocks(for: report, in: &state)
            let text = report.renderText(process: process) + Self.heldLocksSection(locks)
            var document = TerminationReportDocument(report, date: date)
            document.locksHeldAtSuspension = locks
            let base = try TerminationReportFiles.write(
                text: text,
                document: document,
                for: report,
                date: date,
                in: path
            )
            state.reportsWritten.append(base)
            logger.notice("\(report.app): termination report \(ControlCharacters.escaped(path))/\(base).{txt,json}")
        } catch {
            logger.error("\(report.app): the termination report could not be written to \(path): \(error)")
        }
    }
}
