import BackgroundCore

extension ScenarioRun {
    /// Each expectation that did not hold, in words.
    func checkExpectations() -> [String] {
        guard let expected = scenario.expectations else { return [] }
        var failures: [String] = []
        if let violations = expected.violations, !violations.matches(simulator.violations.count) {
            failures.append("expected \(violations) invariant violations, saw \(simulator.violations.count)")
        }
        if let terminations = expected.terminations { failures += check(terminations) }
        let runsByApp = Dictionary(grouping: simulator.taskRuns, by: \.app)  // one pass, however many apps
        for task in expected.tasks {
            let count = (runsByApp[AppID(task.app)] ?? []).count { run in
                run.identifier == task.identifier && Self.matches(run.outcome, task.outcome)
            }
            if !task.count.matches(count) {
                failures.append(
                    "expected \(task.count) \(task.outcome.rawValue) runs of \"\(task.identifier)\" (\(task.app)), saw \(count)"
                )
            }
        }
        for (app, state) in expected.finalStates.sorted(by: { $0.key < $1.key }) {
            let actual = simulator.state(of: AppID(app))
            if state.rawValue != actual.name {
                failures.append("expected \(app) to end \(state.rawValue), it is \(actual)")
            }
        }
        for request in expected.pending {
            let pending = simulator.pendingRequests(of: AppID(request.app)).map(\.identifier)
            if !pending.contains(request.identifier) {
                failures.append("expected \"\(request.identifier)\" (\(request.app)) to be pending at the end")
            }
        }
        if let expectedOn = expected.lowPowerModeTurnedOn, expectedOn != lowPowerModeTurnedOn {
            failures.append("expected Low Power Mode \(expectedOn ? "to" : "not to") switch on")
        }
        if let minimum = expected.minimumBatteryLevel, !minimum.matches(lowestBatteryLevel) {
            failures.append("expected the lowest battery level \(minimum), it was \(lowestBatteryLevel)")
        }
        return failures
    }

    private func check(_ expected: [Scenario.Expectations.Termination]) -> [String] {
        let reports = simulator.reports
        var failures: [String] = []
        if reports.count != expected.count {
            let seen = reports.map { "\($0.app) (\($0.reason))" }.joined(separator: ", ")
            failures.append(
                "expected \(expected.count) terminations, saw \(reports.count)\(seen.isEmpty ? "" : ": \(seen)")"
            )
        }
        for (index, (wanted, report)) in zip(expected, reports).enumerated() {
            var problems: [String] = []
            if report.app.bundleIdentifier != wanted.app { problems.append("app \(report.app)") }
            if let code = wanted.code, !Self.matches(report.reason, code) { problems.append("reason \(report.reason)") }
            let named = Set(report.leakedAssertions.map(\.name) + report.uncompletedTasks.map(\.identifier))
            for name in wanted.names where !named.contains(name) { problems.append("no \"\(name)\" in the report") }
            if !problems.isEmpty {
                let want = "\(wanted.app)\(wanted.code.map { " \($0)" } ?? "")"
                failures.append("termination \(index + 1): expected \(want), got " + problems.joined(separator: ", "))
            }
        }
        return failures
    }

    /// Whether Low Power Mode was on at any point.
    var lowPowerModeTurnedOn: Bool {
        scenario.device.lowPowerMode
            || simulator.events.contains { event in
                if case .device(.lowPowerMode(true, _), _) = event.kind { return true }
                return false
            }
    }

    /// The lowest battery level seen.
    var lowestBatteryLevel: Double {
        simulator.events.reduce(min(scenario.device.batteryLevel, simulator.deviceNow.batteryLevel)) { lowest, event in
            if case .device(_, let state) = event.kind { return min(lowest, state.batteryLevel) }
            return lowest
        }
    }

    static func matches(_ outcome: TaskOutcome?, _ wanted: Scenario.Expectations.TaskOutcome.Outcome) -> Bool {
        switch wanted {
        case .any: return true
        case .succeeded: return outcome == .succeeded
        case .failed: return outcome == .failed
        case .killed: return outcome == .killed
        }
    }

    static func matches(_ reason: TerminationReason, _ code: Scenario.Expectations.TerminationCode) -> Bool {
        switch (reason, code) {
        case (.watchdog(let actual), .exception(let wanted)): return actual.rawValue == wanted
        case (.userForceQuit, .forceQuit), (.exited, .exit), (.systemReclaimed, .reclaimed): return true
        default: return false
        }
    }
}
