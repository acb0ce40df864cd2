import BackgroundCore

extension ScenarioRun {
    /// A short account of the run: per app, what ran and how it ended; the device; the
    /// violations; and the expectations.
    public var summary: String {
        let clock = simulator.clockLabel
        var lines = [
            "\(scenario.name): seed \(scenario.seed), policy \(simulator.configuration.policy.name), "
                + "\(ScenarioTime.format(scenario.duration)) from \(scenario.start)",
            "  \(simulator.events.count) events, \(scenario.apps.count) apps, \(simulator.violations.count) violations",
        ]
        // One pass over the events, the runs and the reports, whatever the number of apps.
        let activity = AppActivity.tally(simulator)
        for app in scenario.apps.map({ AppID($0.id) }) {
            let tally = activity[app] ?? AppActivity()
            lines.append("  \(app.bundleIdentifier)")
            lines.append("    " + describe(app, tally))
            lines += waitLines(app)
            for report in tally.reports {
                lines.append("    ended at \(clock.label(report.at)): \(report.reason) (\(report.explanation))")
                for leak in report.leakedAssertions {
                    lines.append(
                        "      leaked \"\(leak.name)\" (#\(leak.id.rawValue)), begun at \(clock.label(leak.beganAt)) "
                            + "in \(leak.origin)"
                    )
                }
                for task in report.uncompletedTasks {
                    lines.append(
                        "      not completed: \"\(task.identifier)\" (\(task.kind)), started at \(clock.label(task.startedAt))"
                    )
                }
            }
        }
        lines.append("  device: " + deviceSummary())
        for violation in simulator.violations.prefix(20) {
            lines.append(
                "  VIOLATION at \(clock.label(violation.at)): \(violation.invariant.statement): \(violation.message)"
            )
        }
        if let expected = scenario.expectations {
            let count = expected.checkCount
            if failures.isEmpty {
                lines.append("  expectations: all \(count) held")
            } else {
                lines.append("  expectations: \(failures.count) of \(count) failed")
                lines += failures.map { "    ✗ " + $0 }
            }
        }
        lines.append(passed ? "PASSED" : "FAILED")
        return lines.joined(separator: "\n")
    }

    private func describe(_ app: AppID, _ tally: AppActivity) -> String {
        var outcomes: [String] = []
        for outcome in [TaskOutcome.succeeded, .failed, .killed] {
            let count = tally.outcomes[outcome, default: 0]
            if count > 0 { outcomes.append("\(count) \(outcome.rawValue)") }
        }
        if tally.running > 0 { outcomes.append("\(tally.running) running") }
        let pending = simulator.pendingRequests(of: app).map { "\"\($0.identifier)\"" }
        return "launches: \(tally.foregroundLaunches) by the user, \(tally.backgroundLaunches) in the background; "
            + "assertions: \(tally.granted); task runs: \(outcomes.isEmpty ? "none" : outcomes.joined(separator: ", "))"
            + (pending.isEmpty ? "" : "; pending: " + pending.joined(separator: ", "))
            + "; now \(simulator.state(of: app))"
    }

    /// Per identifier that ran, what its last run waited for (from the system's history).
    private func waitLines(_ app: AppID) -> [String] {
        simulator.explanations(of: app).compactMap { explanation in
            guard let last = explanation.history.runs.last else { return nil }
            let waits = last.waits.prefix(3).map { "\($0.reason) \(DurationText.format($0.duration))" }
            let count = explanation.history.runs.count
            return "    \"\(explanation.identifier)\": \(count) run(s) recorded; the last waited "
                + "\(DurationText.format(last.waited))"
                + (waits.isEmpty ? "" : " (for " + waits.joined(separator: ", ") + ")")
        }
    }

    private func deviceSummary() -> String {
        let device = simulator.deviceNow
        let lowest = Int((lowestBatteryLevel * 100).rounded())
        let start = Int((scenario.device.batteryLevel * 100).rounded())
        var text = "battery \(start) % → lowest \(lowest) % → \(device.percent) %"
        text += lowPowerModeTurnedOn ? ", Low Power Mode was on" : ", Low Power Mode stayed off"
        let reboots = simulator.events.count { if case .device(.reboot, _) = $0.kind { true } else { false } }
        if reboots > 0 { text += ", \(reboots) reboot(s)" }
        if !device.isOn { text += ", off (battery empty)" }
        return text
    }
}

extension Scenario.Expectations {
    /// How many separate checks these expectations make.
    var checkCount: Int {
        var count = tasks.count + finalStates.count + pending.count
        if violations != nil { count += 1 }
        if terminations != nil { count += 1 }
        if lowPowerModeTurnedOn != nil { count += 1 }
        if minimumBatteryLevel != nil { count += 1 }
        return count
    }
}

/// What one app did in a run, counted for the summary.
struct AppActivity {
    var foregroundLaunches = 0
    var backgroundLaunches = 0
    var granted = 0
    var outcomes: [TaskOutcome: Int] = [:]
    var running = 0
    var reports: [TerminationReport] = []

    /// Every app's activity, from one pass over the simulator's events, runs and reports.
    @MainActor
    static func tally(_ simulator: Simulator) -> [AppID: AppActivity] {
        var activity: [AppID: AppActivity] = [:]
        for event in simulator.events {
            switch event.kind {
            case .system(.stateChanged(let app, let from, let to)) where !from.hasProcess:
                if to == .background {
                    activity[app, default: AppActivity()].backgroundLaunches += 1
                } else {
                    activity[app, default: AppActivity()].foregroundLaunches += 1
                }
            case .reply(let app, .granted):
                activity[app, default: AppActivity()].granted += 1
            default:
                break
            }
        }
        for run in simulator.taskRuns {
            if let outcome = run.outcome {
                activity[run.app, default: AppActivity()].outcomes[outcome, default: 0] += 1
            } else {
                activity[run.app, default: AppActivity()].running += 1
            }
        }
        for report in simulator.reports { activity[report.app, default: AppActivity()].reports.append(report) }
        return activity
    }
}
