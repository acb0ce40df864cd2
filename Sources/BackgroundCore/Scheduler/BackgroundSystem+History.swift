/// A request identifier's past and present: its recent runs, and how long the pending request
/// has waited so far and for what.
///
/// ```swift
/// let history = system.history(of: "com.example.notes", identifier: "com.example.notes.db-cleanup", at: now)
/// history.runs.last?.waited(for: .externalPower)   // .seconds(6 * 3600): it waited 6 h for power
/// ```
public struct RequestHistory: Sendable, Hashable, Codable {
    /// The app.
    public var app: AppID
    /// The request identifier.
    public var identifier: String
    /// Recent runs, oldest first (at most ``SchedulingPolicy/historyRunsPerIdentifier``).
    public var runs: [RunRecord]
    /// When the pending request was submitted, if one is pending.
    public var pendingSince: Instant?
    /// What has held the pending request back so far, longest first.
    public var waiting: [ConditionWait]

    /// How long the pending request has waited so far for `reason`.
    public func waiting(for reason: WaitReason) -> Duration {
        waiting.first { $0.reason == reason }?.duration ?? .zero
    }
}

extension RunRecord {
    /// How long the request waited for `reason` before this run.
    public func waited(for reason: WaitReason) -> Duration {
        waits.first { $0.reason == reason }?.duration ?? .zero
    }
}

extension BackgroundSystem {
    /// Recent runs per request identifier and the device's condition intervals.
    public var decisionHistory: DecisionHistory { history }

    /// The app's manifest, once installed (or restored).
    public func manifest(of app: AppID) -> AppManifest? { appIndex[app].flatMap { apps[$0].manifest } }

    /// The history of one request identifier: its runs and the pending request's waits so far.
    public func history(of app: AppID, identifier: String, at now: Instant) -> RequestHistory {
        var result = RequestHistory(
            app: app,
            identifier: identifier,
            runs: history.runs(of: app, identifier: identifier),
            pendingSince: nil,
            waiting: []
        )
        if let index = appIndex[app], let pending = apps[index].pending[identifier] {
            result.pendingSince = pending.request.submittedAt
            result.waiting = waits(of: pending.request, until: max(now, pending.request.submittedAt))
        }
        return result
    }

    /// The device conditions unmet now, as wait reasons.
    var unmetDeviceReasons: [WaitReason] { WaitReason.reasons(in: unmetGates) }

    /// What held a request back from its submission until `end`.
    func waits(of request: TaskRequest, until end: Instant) -> [ConditionWait] {
        history.waits(
            needing: WaitReason.reasons(in: DeviceGates(for: request, policy: policy.scheduling)),
            earliestBegin: request.earliestBegin,
            from: request.submittedAt,
            to: end,
            current: unmetDeviceReasons
        )
    }

    /// Records a change of the device's unmet conditions (one append for the device, whatever
    /// the number of requests), and persists it.
    mutating func recordDeviceChange(from before: [WaitReason], at now: Instant, into effects: inout [Effect]) {
        let after = unmetDeviceReasons
        guard after != before else { return }
        let wasEmpty = history.device.isEmpty
        history.recordDevice(unmet: after, before: before, at: now, limit: policy.scheduling.historyDeviceIntervals)
        // The last interval is new, or replaced one that began at the same instant.
        for interval in history.device.suffix(wasEmpty ? 2 : 1) {
            effects.append(.persist(.recordDeviceInterval(interval)))
        }
    }

    /// Records a finished run with what it waited for, and persists it.
    mutating func recordRun(
        _ index: Int,
        _ run: TaskRun,
        _ outcome: TaskOutcome,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        let request = run.request
        let record = RunRecord(
            identifier: request.identifier,
            kind: request.kind,
            submittedAt: request.submittedAt,
            startedAt: run.startedAt,
            endedAt: now,
            outcome: outcome,
            waits: waits(of: request, until: run.startedAt)
        )
        history.record(record, of: apps[index].id, limit: policy.scheduling.historyRunsPerIdentifier)
        // Silent pushes are not stored: the store's schema (migrations never change once shipped)
        // admits the four request kinds; their history lives in memory only.
        guard request.kind != .remoteNotification else { return }
        effects.append(.persist(.recordRun(apps[index].id, record)))
    }

    /// Records the runs a process had when it ended as killed, in run order.
    mutating func recordKilledRuns(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        for run in apps[index].running.values.sorted(by: { $0.id < $1.id }) {
            recordRun(index, run, .killed, at: now, into: &effects)
        }
    }

    /// Restores history read back from a store: the app's runs, and the device's intervals when
    /// this system has none of its own yet.
    mutating func restoreHistory(_ saved: PersistedApp) {
        let app = saved.app
        let runs = saved.runs
        if history.device.isEmpty {
            history.device = saved.deviceIntervals.sorted { $0.from < $1.from }
                .suffix(policy.scheduling.historyDeviceIntervals).map { $0 }
        }
        for run in runs.sorted(by: { ($0.startedAt, $0.identifier) < ($1.startedAt, $1.identifier) }) {
            history.record(run, of: app, limit: policy.scheduling.historyRunsPerIdentifier)
        }
    }
}
