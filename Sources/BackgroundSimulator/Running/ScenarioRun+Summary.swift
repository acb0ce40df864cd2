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
        for app in scenario.apps.map({ AppID($0.id) }) {
            lines.append("  \(app.bundleIdentifier)")
            lines.append("    " + appActivity(app))
            lines += waitLines(app)
            for report in simulator.reports where report.app == app {
                lines.append("    ended at \(clock.label(report.at)): \(report.reason) (\(report.explanation))")
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

    private func appActivity(_ app: AppID) -> String {
        var foreground = 0
        var background = 0
        var granted = 0
        for event in simulator.events where event.app == app {
            switch event.kind {
            case .system(.stateChanged(_, let from, let to)) where !from.hasProcess:
                if to == .background { background += 1 } else { foreground += 1 }
            case .reply(_, .granted): granted += 1
            default: break
            }
        }
        let runs = simulator.taskRuns(of: app)
        var outcomes: [String] = []
        for outcome in [TaskOutcome.succeeded, .failed, .killed] {
            let count = runs.count { $0.outcome == outcome }
            if count > 0 { outcomes.append("\(count) \(outcome.rawValue)") }
        }
        let running = runs.count { $0.outcome == nil }
        if running > 0 { outcomes.append("\(running) running") }
        let pending = simulator.pendingRequests(of: app).map { "\"\($0.identifier)\"" }
        return "launches: \(foreground) by the user, \(background) in the background; "
            + "assertions: \(granted); task runs: \(outcomes.isEmpty ? "none" : outcomes.joined(separator: ", "))"
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
