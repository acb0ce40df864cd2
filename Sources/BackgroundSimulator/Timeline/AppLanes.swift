import BackgroundCore

/// The app lanes of a timeline, folded from the system's effects: each app's states,
/// assertions, tasks, modes, transfers and markers. The one reading of effects for a timeline:
/// the simulator's event log (``TimelineBuilder``) and the daemon's journal
/// (`bgctl daemon timeline`) both feed it, so a state, a termination or a budget is drawn the
/// same way from either.
package struct AppLanes {
    /// An assertion drawn from its begin until it ends.
    package struct OpenAssertion {
        let name: String
        let start: Double
        var expired = false
    }

    /// One app's lanes and what is still open in them.
    package struct Lanes {
        /// The state since when (its ``AppLifecycleState/name``, which the renderer colours).
        var state = ("notRunning", 0.0)
        package var timeline: AppTimeline
        var assertions: [AssertionID: OpenAssertion] = [:]
        var tasks: [TaskRunID: (run: TaskRun, expired: Bool)] = [:]
        /// Held background modes and when each began.
        var modes: [BackgroundMode: Double] = [:]
        /// Transfers not yet ended, by key.
        package var transfers: [TransferKey: OpenTransfer] = [:]
    }

    /// The budget the foreground's unlimited samples are drawn against, in seconds.
    package var budgetLimit: Double
    package var lanes: [AppID: Lanes] = [:]
    /// The apps in the order they were first seen.
    package private(set) var order: [AppID] = []

    /// Lanes drawn against a budget of `budgetLimit` seconds (the policy's).
    package init(budgetLimit: Double) {
        self.budgetLimit = budgetLimit
    }

    /// The app's lanes, opened empty the first time.
    @discardableResult
    package mutating func lane(_ app: AppID) -> AppID {
        if lanes[app] == nil {
            lanes[app] = Lanes(
                timeline: AppTimeline(
                    id: app.bundleIdentifier,
                    states: [],
                    assertions: [],
                    tasks: [],
                    budget: [],
                    markers: []
                )
            )
            order.append(app)
        }
        return app
    }

    /// An assertion the system granted, from `time`.
    package mutating func openAssertion(_ app: AppID, _ id: AssertionID, name: String, at time: Double) {
        lanes[lane(app)]?.assertions[id] = OpenAssertion(name: name, start: time)
    }

    /// A reading of the app's background time.
    package mutating func addBudget(_ app: AppID, remaining: Double, depleting: Bool, at time: Double) {
        lanes[lane(app)]?.timeline.budget.append(
            TimelineBudgetSample(
                time: time,
                remainingSeconds: remaining,
                limitSeconds: budgetLimit,
                depleting: depleting
            )
        )
    }

    /// A marker in the app's lane.
    package mutating func mark(_ app: AppID, _ marker: TimelineMarker) {
        lanes[lane(app)]?.timeline.markers.append(marker)
    }

    /// Folds one of the system's effects in.
    package mutating func add(_ effect: Effect, at time: Double) {
        switch effect {
        case .stateChanged(let app, _, let to):
            let index = lane(app)
            let (label, start) = lanes[index]!.state
            lanes[index]?.timeline.states.append(TimelineSpan(start: start, end: time, label: label))
            lanes[index]?.state = (to.name, time)
            if to.isForeground {
                lanes[index]?.timeline.budget.append(
                    TimelineBudgetSample(
                        time: time,
                        remainingSeconds: .greatestFiniteMagnitude,
                        limitSeconds: budgetLimit
                    )
                )
            }
        case .launch(let app, let reason, let incarnation):
            mark(app, TimelineMarker(time: time, label: "launched (\(reason.rawValue))", detail: "\(incarnation)"))
        case .runExpirationHandler(let app, let id):
            lanes[lane(app)]?.assertions[id]?.expired = true
        case .runTasks(let app, let runs):
            for run in runs { lanes[lane(app)]?.tasks[run.id] = (run, false) }
        case .expireTask(let app, let id):
            lanes[lane(app)]?.tasks[id]?.expired = true
        case .taskFinished(let app, let id, let outcome):
            closeTask(app, id, at: time, outcome: outcome)
        case .terminate(let app, let report), .exit(let app, _, let report):
            terminate(app, report, at: time)
        case .modeChanged(let app, let mode, held: true):
            lanes[lane(app)]?.modes[mode] = time
        case .modeChanged(let app, let mode, held: false):
            closeMode(app, mode, at: time)
        case .fault(let app, let message):
            mark(app, TimelineMarker(time: time, label: "fault", severity: .fault, detail: message))
        default:
            break
        }
    }

    /// Every process ended without effects of the system's (a reboot, an empty battery): every
    /// lane goes to not running, what was held or running ends there, with `marker` for why.
    package mutating func endEveryProcess(at time: Double, marker: (Double) -> TimelineMarker) {
        for app in order {
            guard let current = lanes[app] else { continue }
            for id in current.assertions.keys.sorted() { closeAssertion(app, id, at: time, outcome: .leaked) }
            for id in current.tasks.keys.sorted() { closeTask(app, id, at: time, outcome: .killed) }
            for mode in current.modes.keys.sorted(by: { $0.rawValue < $1.rawValue }) { closeMode(app, mode, at: time) }
            if current.state.0 != "notRunning" {
                lanes[app]?.timeline.states.append(
                    TimelineSpan(start: current.state.1, end: time, label: current.state.0)
                )
                lanes[app]?.state = ("notRunning", time)
                lanes[app]?.timeline.markers.append(marker(time))
            }
        }
    }

    package mutating func terminate(_ app: AppID, _ report: TerminationReport, at time: Double) {
        for id in lanes[lane(app)]?.assertions.keys.sorted() ?? [] {
            closeAssertion(app, id, at: time, outcome: .leaked)
        }
        for id in lanes[lane(app)]?.tasks.keys.sorted() ?? [] { closeTask(app, id, at: time, outcome: .killed) }
        let severity: TimelineMarker.Severity = report.code != nil ? .fault : report.isClean ? .info : .warning
        let label = report.code.map { "\($0)" } ?? "\(report.reason)"
        mark(app, TimelineMarker(time: time, label: label, severity: severity, detail: report.explanation))
    }

    /// Ends a mode's span in the modes lane.
    mutating func closeMode(_ app: AppID, _ mode: BackgroundMode, at time: Double) {
        guard let start = lanes[app]?.modes.removeValue(forKey: mode) else { return }
        lanes[app]?.timeline.modes.append(TimelineSpan(start: start, end: time, label: mode.rawValue))
    }

    /// Ends an assertion's bar: `outcome`, or ended (expired if its handler ran).
    package mutating func closeAssertion(
        _ app: AppID,
        _ id: AssertionID,
        at time: Double,
        outcome: TimelineBar.Outcome?
    ) {
        guard let open = lanes[app]?.assertions.removeValue(forKey: id) else { return }
        let result = outcome ?? (open.expired ? .expired : .ended)
        let detail = "\"\(open.name)\" #\(id.rawValue): \(result.rawValue) after \(Self.seconds(time - open.start))"
        lanes[app]?.timeline.assertions.append(
            TimelineBar(name: open.name, start: open.start, end: time, outcome: result, detail: detail)
        )
    }

    mutating func closeTask(_ app: AppID, _ id: TaskRunID, at time: Double, outcome: TaskOutcome) {
        guard let (run, expired) = lanes[app]?.tasks.removeValue(forKey: id) else { return }
        let result: TimelineBar.Outcome
        switch outcome {
        case .succeeded: result = .succeeded
        case .failed: result = .failed
        case .killed: result = .killed
        }
        let start = run.startedAt.seconds
        let detail =
            "\"\(run.request.identifier)\" (\(run.request.kind)) \(id): \(outcome.rawValue)"
            + "\(expired ? " after expiration" : "") in \(Self.seconds(time - start))"
        lanes[app]?.timeline.tasks.append(
            TimelineBar(name: run.request.identifier, start: start, end: time, outcome: result, detail: detail)
        )
    }

    static func seconds(_ value: Double) -> String {
        Duration.seconds(fromInterval: value).formattedSeconds + " s"
    }

    /// The lanes with everything still open drawn up to `end`, in the order the apps were seen.
    package func finished(at end: Double, openTransfers: String = "still going") -> [AppTimeline] {
        order.compactMap { app -> AppTimeline? in
            guard var lanes = lanes[app] else { return nil }
            lanes.timeline.states.append(TimelineSpan(start: lanes.state.1, end: end, label: lanes.state.0))
            for (id, open) in lanes.assertions.sorted(by: { $0.key < $1.key }) {
                lanes.timeline.assertions.append(
                    TimelineBar(
                        name: open.name,
                        start: open.start,
                        end: end,
                        outcome: .open,
                        detail: "#\(id.rawValue) still held"
                    )
                )
            }
            for (mode, start) in lanes.modes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                lanes.timeline.modes.append(TimelineSpan(start: start, end: end, label: mode.rawValue))
            }
            for key in lanes.transfers.keys.sorted() {
                guard let open = lanes.transfers[key] else { continue }
                lanes.timeline.transfers.append(open.finished(at: end, outcome: nil, detail: openTransfers))
            }
            for (id, entry) in lanes.tasks.sorted(by: { $0.key < $1.key }) {
                let start = entry.run.startedAt.seconds
                lanes.timeline.tasks.append(
                    TimelineBar(
                        name: entry.run.request.identifier,
                        start: start,
                        end: end,
                        outcome: .running,
                        detail: "\(id) still running"
                    )
                )
            }
            return lanes.timeline
        }
    }
}
