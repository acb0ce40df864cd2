import BackgroundCore
import BackgroundProtocol
import BackgroundSimulator

/// The timeline of a real machine, folded from the daemon's journal into the simulator's
/// ``TimelineDocument``: one lane per app with its states, assertions, tasks and markers
/// (launches, terminations with their codes), and the budget from the journal's readings of
/// each app's background time (unlimited while in the foreground, as the simulator draws it).
///
/// Background transfers the daemon ran are drawn in each app's transfers lane (from the
/// journal's transfer readings).
///
/// The device lane has the memory pressure the daemon reported to the core (the journal's
/// `memoryPressure` events). **Partial:** there is no battery or network lane (the daemon
/// records no device readings yet).
struct DaemonTimeline {
    private struct Lane {
        var timeline: AppTimeline
        var state: (label: String, since: Double)?
        var assertions: [AssertionID: (name: String, start: Double, expired: Bool)] = [:]
        var tasks: [TaskRunID: (name: String, start: Double)] = [:]
        var transfers: [TransferKey: OpenTransfer] = [:]
    }

    private var lanes: [AppID: Lane] = [:]
    /// The device lane's markers: memory pressure reports.
    private var deviceMarkers: [TimelineMarker] = []
    private let origin: Double
    /// The budget the readings count down from (iOS's until a reading says otherwise).
    private var limit = 30.0

    /// Folds `entries` (oldest first) that start at `origin` (wall-clock seconds).
    static func document(from entries: [JournalEntry], origin: Double, end: Double, title: String) -> TimelineDocument {
        var builder = DaemonTimeline(origin: origin)
        for entry in entries { builder.add(entry) }
        return TimelineDocument(
            title: title,
            subtitle: "\(entries.count) journal entries",
            duration: max(end - origin, 1),
            originUnixSeconds: origin,
            deviceMarkers: builder.deviceMarkers,
            apps: builder.finished(at: end - origin)
        )
    }

    private init(origin: Double) { self.origin = origin }

    private mutating func lane(_ app: AppID) -> AppID {
        if lanes[app] == nil {
            lanes[app] = Lane(
                timeline: AppTimeline(
                    id: app.bundleIdentifier,
                    states: [],
                    assertions: [],
                    tasks: [],
                    budget: [],
                    markers: []
                )
            )
        }
        return app
    }

    private mutating func add(_ entry: JournalEntry) {
        let time = entry.time - origin
        if let reading = entry.transfer { add(reading, at: time) }
        if let event = entry.event {
            switch event {
            case .beginAssertion(let app, let name, _, _), .assertionBegun(let app, _, let name, _, _):
                if case .granted(let id)? = entry.reply { lanes[lane(app)]?.assertions[id] = (name, time, false) }
            case .endAssertion(let app, let id):
                closeAssertion(app, id, at: time, outcome: nil)
            case .memoryPressure(let level):
                deviceMarkers.append(.memoryPressure(level, at: time))
            default:
                break
            }
        }
        if let effect = entry.effect { add(effect, at: time) }
        if let reading = entry.budget {
            lanes[lane(reading.app)]?.timeline.budget.append(
                TimelineBudgetSample(
                    time: time,
                    remainingSeconds: reading.remainingSeconds,
                    limitSeconds: reading.limitSeconds,
                    depleting: reading.depleting
                )
            )
            limit = reading.limitSeconds
        }
    }

    private mutating func add(_ effect: Effect, at time: Double) {
        switch effect {
        case .stateChanged(let app, _, let to):
            let key = lane(app)
            if let open = lanes[key]?.state {
                lanes[key]?.timeline.states.append(TimelineSpan(start: open.since, end: time, label: open.label))
            }
            lanes[key]?.state = (to.description, time)
            if to.isForeground {
                lanes[key]?.timeline.budget.append(
                    TimelineBudgetSample(time: time, remainingSeconds: .greatestFiniteMagnitude, limitSeconds: limit)
                )
            }
        case .runExpirationHandler(let app, let id):
            lanes[lane(app)]?.assertions[id]?.expired = true
        case .runTasks(let app, let runs):
            for run in runs { lanes[lane(app)]?.tasks[run.id] = (run.request.identifier, time) }
        case .taskFinished(let app, let id, let outcome):
            let key = lane(app)
            if let task = lanes[key]?.tasks.removeValue(forKey: id) {
                let bar: TimelineBar.Outcome =
                    outcome == .succeeded ? .succeeded : outcome == .failed ? .failed : .killed
                lanes[key]?.timeline.tasks.append(
                    TimelineBar(name: task.name, start: task.start, end: time, outcome: bar)
                )
            }
        case .launch(let app, let reason, let incarnation):
            lanes[lane(app)]?.timeline.markers.append(
                TimelineMarker(time: time, label: "launched (\(reason.rawValue))", detail: incarnation.description)
            )
        case .terminate(let app, let report):
            let key = lane(app)
            for id in (lanes[key]?.assertions.keys.sorted { $0.rawValue < $1.rawValue }) ?? [] {
                closeAssertion(app, id, at: time, outcome: .leaked)
            }
            let code = report.code.map { " \($0)" } ?? ""
            lanes[key]?.timeline.markers.append(
                TimelineMarker(
                    time: time,
                    label: "terminated\(code)",
                    severity: report.isClean ? .info : .fault,
                    detail: report.explanation
                )
            )
        default:
            break
        }
    }

    /// A transfer's change, from the daemon's journal: waits (hatched, with why) and runs until
    /// it completes or fails, in the app's transfers lane.
    private mutating func add(_ reading: JournalEntry.TransferReading, at time: Double) {
        let app = lane(reading.app)
        let key = TransferKey(app: app, session: reading.session, task: reading.task)
        let phase: TimelineTransfer.Phase? =
            switch reading.phase {
            case .waiting: .waiting
            case .running: .running
            case .completed, .failed: nil
            }
        if lanes[app]?.transfers[key] == nil {
            var open = OpenTransfer(name: key.identifier, about: "transfer", since: time, detail: reading.detail)
            open.phase = phase ?? .waiting
            lanes[app]?.transfers[key] = open
        } else if let phase {
            lanes[app]?.transfers[key]?.enter(phase, at: time, detail: reading.detail)
        }
        switch reading.phase {
        case .waiting, .running:
            break
        case .completed, .failed:
            guard let open = lanes[app]?.transfers.removeValue(forKey: key) else { return }
            lanes[app]?.timeline.transfers.append(
                open.finished(
                    at: time,
                    outcome: reading.phase == .completed ? .completed : .failed,
                    detail: reading.detail
                )
            )
        }
    }

    private mutating func closeAssertion(
        _ app: AppID,
        _ id: AssertionID,
        at time: Double,
        outcome: TimelineBar.Outcome?
    ) {
        guard let open = lanes[app]?.assertions.removeValue(forKey: id) else { return }
        let ended = outcome ?? (open.expired ? .expired : .ended)
        lanes[app]?.timeline.assertions.append(
            TimelineBar(name: open.name, start: open.start, end: time, outcome: ended)
        )
    }

    private mutating func finished(at end: Double) -> [AppTimeline] {
        var result: [AppTimeline] = []
        for app in lanes.keys.sorted() {
            guard var lane = lanes[app] else { continue }
            if let open = lane.state {
                lane.timeline.states.append(TimelineSpan(start: open.since, end: end, label: open.label))
            }
            for (id, open) in lane.assertions.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                _ = id
                lane.timeline.assertions.append(
                    TimelineBar(name: open.name, start: open.start, end: end, outcome: .open)
                )
            }
            for (_, open) in lane.tasks.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                lane.timeline.tasks.append(TimelineBar(name: open.name, start: open.start, end: end, outcome: .running))
            }
            for (_, open) in lane.transfers.sorted(by: { $0.key < $1.key }) {
                lane.timeline.transfers.append(open.finished(at: end, outcome: nil, detail: "goes on"))
            }
            result.append(lane.timeline)
        }
        return result
    }
}
