import BackgroundCore

extension TimelineDocument {
    /// The timeline of a simulator's run so far, from its event log.
    ///
    /// ```swift
    /// let html = TimelineRenderer.html(for: TimelineDocument(simulator: simulator, title: "News day"))
    /// ```
    @MainActor
    public init(simulator: Simulator, title: String, subtitle: String? = nil) {
        var builder = TimelineBuilder(simulator: simulator)
        for event in simulator.events { builder.add(event) }
        let configuration = simulator.configuration
        self.init(
            title: title,
            subtitle: subtitle ?? "seed \(configuration.seed) · policy \(configuration.policy.name)",
            duration: simulator.now.seconds,
            originUnixSeconds: configuration.start.timeIntervalSince1970,
            utcOffsetSeconds: configuration.utcOffset,
            battery: builder.battery,
            network: builder.finishedNetwork(),
            deviceMarkers: builder.deviceMarkers,
            apps: builder.finishedApps()
        )
    }
}

/// Folds the event log into lanes.
@MainActor
struct TimelineBuilder {
    struct OpenAssertion {
        let name: String
        let start: Double
        var expired = false
    }

    struct Lanes {
        var state = ("notRunning", 0.0)
        var timeline: AppTimeline
        var assertions: [AssertionID: OpenAssertion] = [:]
        var tasks: [TaskRunID: (run: TaskRun, expired: Bool)] = [:]
        /// Held background modes and when each began.
        var modes: [BackgroundMode: Double] = [:]
        /// Transfers not yet ended, by key.
        var transfers: [TransferKey: OpenTransfer] = [:]
    }

    let simulator: Simulator
    let budgetLimit: Double
    var battery: [TimelineBatterySample]
    var network: (label: String, start: Double)
    var networkSpans: [TimelineSpan] = []
    var deviceMarkers: [TimelineMarker] = []
    var lanes: [AppID: Lanes] = [:]
    var order: [AppID] = []

    init(simulator: Simulator) {
        self.simulator = simulator
        self.budgetLimit = simulator.configuration.policy.backgroundTimeBudget.seconds
        let device = simulator.configuration.device
        battery = [Self.sample(device, at: 0)]
        network = (Self.networkLabel(device), 0)
        for app in simulator.installed.map(\.id) { lane(app) }
    }

    static func sample(_ state: DeviceState, at time: Double) -> TimelineBatterySample {
        TimelineBatterySample(
            time: time,
            level: state.batteryLevel,
            charging: state.powerSource == .externalPower,
            lowPowerMode: state.lowPowerMode
        )
    }

    static func networkLabel(_ state: DeviceState) -> String {
        switch state.network {
        case .none: return "none"
        case .wifi: return state.isMetered ? "wifi (metered)" : "wifi"
        case .cellular: return state.isMetered ? "cellular (metered)" : "cellular"
        }
    }

    @discardableResult
    mutating func lane(_ app: AppID) -> AppID {
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

    mutating func add(_ event: SimulationEvent) {
        let time = event.at.seconds
        switch event.kind {
        case .device(let change, let state):
            battery.append(Self.sample(state, at: time))
            let label = Self.networkLabel(state)
            if label != network.label {
                networkSpans.append(TimelineSpan(start: network.start, end: time, label: network.label))
                network = (label, time)
            }
            if let marker = Self.marker(for: change, at: time) { deviceMarkers.append(marker) }
            if change == .reboot || change == .shutdown { endEveryProcess(at: time, because: change) }
        case .system(let effect):
            add(effect, at: time)
        case .appCall(let app, .beginBackgroundTask(let name, let id?)):
            lanes[lane(app)]?.assertions[id] = OpenAssertion(name: name, start: time)
        case .appCall(let app, .endBackgroundTask(let id)):
            closeAssertion(app, id, at: time, outcome: nil)
        case .budget(let app, let remaining, let depleting):
            lanes[lane(app)]?.timeline.budget.append(
                TimelineBudgetSample(
                    time: time,
                    remainingSeconds: remaining.seconds,
                    limitSeconds: budgetLimit,
                    depleting: depleting
                )
            )
        case .violation(let violation):
            let marker = TimelineMarker(time: time, label: "violation", severity: .fault, detail: violation.description)
            if let app = violation.app {
                lanes[lane(app)]?.timeline.markers.append(marker)
            } else {
                deviceMarkers.append(marker)
            }
        case .transfer(let activity):
            add(activity, at: time)
        case .user, .appCall, .appCode, .note, .reply:
            break
        }
    }

    static func marker(for change: DeviceChange, at time: Double) -> TimelineMarker? {
        switch change {
        case .pluggedIn, .unplugged, .lowPowerMode, .powerOn, .backgroundAppRefresh:
            return TimelineMarker(time: time, label: change.description)
        case .reboot:
            return TimelineMarker(
                time: time,
                label: "reboot",
                severity: .fault,
                detail: "every process ended; state restored"
            )
        case .shutdown:
            return TimelineMarker(time: time, label: "battery empty", severity: .fault, detail: change.description)
        case .memoryPressure(let level):
            return .memoryPressure(level, at: time)
        case .batteryLevel, .network, .idle, .locked:
            return nil
        }
    }
}

extension TimelineBuilder {
    mutating func add(_ effect: Effect, at time: Double) {
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
            lanes[lane(app)]?.timeline.markers.append(
                TimelineMarker(time: time, label: "fault", severity: .fault, detail: message)
            )
        default:
            break
        }
    }

    /// A reboot or an empty battery ends every process without effects of the system's: every
    /// lane goes to not running, what was held or running ends there, and run identifiers start over.
    mutating func endEveryProcess(at time: Double, because change: DeviceChange) {
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
                lanes[app]?.timeline.markers.append(
                    TimelineMarker(
                        time: time,
                        label: "\(change)",
                        severity: .warning,
                        detail: "the process ended with the device"
                    )
                )
            }
        }
    }

    mutating func terminate(_ app: AppID, _ report: TerminationReport, at time: Double) {
        for id in lanes[lane(app)]?.assertions.keys.sorted() ?? [] {
            closeAssertion(app, id, at: time, outcome: .leaked)
        }
        for id in lanes[lane(app)]?.tasks.keys.sorted() ?? [] { closeTask(app, id, at: time, outcome: .killed) }
        let severity: TimelineMarker.Severity = report.code != nil ? .fault : report.isClean ? .info : .warning
        let label = report.code.map { "\($0)" } ?? "\(report.reason)"
        lanes[lane(app)]?.timeline.markers.append(
            TimelineMarker(time: time, label: label, severity: severity, detail: report.explanation)
        )
    }

    /// Ends a mode's span in the modes lane.
    mutating func closeMode(_ app: AppID, _ mode: BackgroundMode, at time: Double) {
        guard let start = lanes[app]?.modes.removeValue(forKey: mode) else { return }
        lanes[app]?.timeline.modes.append(TimelineSpan(start: start, end: time, label: mode.rawValue))
    }

    mutating func closeAssertion(_ app: AppID, _ id: AssertionID, at time: Double, outcome: TimelineBar.Outcome?) {
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

    mutating func finishedNetwork() -> [TimelineSpan] {
        networkSpans + [TimelineSpan(start: network.start, end: simulator.now.seconds, label: network.label)]
    }

    /// The lanes with everything still open drawn up to now.
    mutating func finishedApps() -> [AppTimeline] {
        let end = simulator.now.seconds
        return order.compactMap { app -> AppTimeline? in
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
                lanes.timeline.transfers.append(open.finished(at: end, outcome: nil, detail: "still going"))
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
