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

/// Folds the event log into lanes: the device's here, the apps' in ``AppLanes`` (shared with
/// `bgctl daemon timeline`).
@MainActor
struct TimelineBuilder {
    let simulator: Simulator
    var apps: AppLanes
    var battery: [TimelineBatterySample]
    var network: (label: String, start: Double)
    var networkSpans: [TimelineSpan] = []
    var deviceMarkers: [TimelineMarker] = []

    init(simulator: Simulator) {
        self.simulator = simulator
        self.apps = AppLanes(budgetLimit: simulator.configuration.policy.backgroundTimeBudget.seconds)
        let device = simulator.configuration.device
        battery = [Self.sample(device, at: 0)]
        network = (Self.networkLabel(device), 0)
        for app in simulator.installed.map(\.id) { apps.lane(app) }
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
            if change == .reboot || change == .shutdown {
                apps.endEveryProcess(at: time) { time in
                    TimelineMarker(
                        time: time,
                        label: "\(change)",
                        severity: .warning,
                        detail: "the process ended with the device"
                    )
                }
            }
        case .system(let effect):
            apps.add(effect, at: time)
        case .appCall(let app, .beginBackgroundTask(let name, let id?)):
            apps.openAssertion(app, id, name: name, at: time)
        case .appCall(let app, .endBackgroundTask(let id)):
            apps.closeAssertion(app, id, at: time, outcome: nil)
        case .budget(let app, let remaining, let depleting):
            apps.addBudget(app, remaining: remaining.seconds, depleting: depleting, at: time)
        case .violation(let violation):
            let marker = TimelineMarker(time: time, label: "violation", severity: .fault, detail: violation.description)
            if let app = violation.app {
                apps.mark(app, marker)
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
    mutating func finishedNetwork() -> [TimelineSpan] {
        networkSpans + [TimelineSpan(start: network.start, end: simulator.now.seconds, label: network.label)]
    }

    /// The lanes with everything still open drawn up to now.
    func finishedApps() -> [AppTimeline] {
        apps.finished(at: simulator.now.seconds)
    }
}
