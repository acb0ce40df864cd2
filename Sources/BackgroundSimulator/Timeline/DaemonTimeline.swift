import BackgroundCore
package import BackgroundProtocol

/// The timeline of a real machine (`bgctl daemon timeline`), folded from the daemon's journal into the simulator's
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
package struct DaemonTimeline {
    /// The apps' lanes, folded from the journal's effects as the simulator folds its own
    /// (``AppLanes``): the same states, assertions, tasks, modes and markers.
    private var apps: AppLanes
    /// The device lane's markers: memory pressure reports.
    private var deviceMarkers: [TimelineMarker] = []
    private let origin: Double

    /// Folds `entries` (oldest first) that start at `origin` (wall-clock seconds).
    package static func document(
        from entries: [JournalEntry],
        origin: Double,
        end: Double,
        title: String
    ) -> TimelineDocument {
        // Drawn against the budget the daemon's readings report (iOS's 30 s when there is none),
        // from the start: not 30 s until the first reading.
        let limit = entries.lazy.compactMap(\.budget).first?.limitSeconds ?? 30
        var builder = DaemonTimeline(origin: origin, budgetLimit: limit)
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

    private init(origin: Double, budgetLimit: Double) {
        self.origin = origin
        self.apps = AppLanes(budgetLimit: budgetLimit)
    }

    private mutating func add(_ entry: JournalEntry) {
        let time = entry.time - origin
        if let reading = entry.transfer { add(reading, at: time) }
        if let event = entry.event {
            switch event {
            case .beginAssertion(let app, let name, _, _), .assertionBegun(let app, _, let name, _, _):
                if case .granted(let id)? = entry.reply { apps.openAssertion(app, id, name: name, at: time) }
            case .endAssertion(let app, let id):
                apps.closeAssertion(app, id, at: time, outcome: nil)
            case .memoryPressure(let level):
                deviceMarkers.append(.memoryPressure(level, at: time))
            default:
                break
            }
        }
        if let effect = entry.effect { apps.add(effect, at: time) }
        if let reading = entry.budget {
            apps.budgetLimit = reading.limitSeconds
            apps.addBudget(reading.app, remaining: reading.remainingSeconds, depleting: reading.depleting, at: time)
        }
    }

    /// A transfer's change, from the daemon's journal: waits (hatched, with why) and runs until
    /// it completes or fails, in the app's transfers lane.
    private mutating func add(_ reading: JournalEntry.TransferReading, at time: Double) {
        let app = apps.lane(reading.app)
        let key = TransferKey(app: app, session: reading.session, task: reading.task)
        let phase: TimelineTransfer.Phase? =
            switch reading.phase {
            case .waiting: .waiting
            case .running: .running
            case .completed, .failed: nil
            }
        if apps.lanes[app]?.transfers[key] == nil {
            var open = OpenTransfer(name: key.identifier, about: "transfer", since: time, detail: reading.detail)
            open.phase = phase ?? .waiting
            apps.lanes[app]?.transfers[key] = open
        } else if let phase {
            apps.lanes[app]?.transfers[key]?.enter(phase, at: time, detail: reading.detail)
        }
        switch reading.phase {
        case .waiting, .running:
            break
        case .completed, .failed:
            guard let open = apps.lanes[app]?.transfers.removeValue(forKey: key) else { return }
            apps.lanes[app]?.timeline.transfers.append(
                open.finished(
                    at: time,
                    outcome: reading.phase == .completed ? .completed : .failed,
                    detail: reading.detail
                )
            )
        }
    }

    /// The lanes, apps in the order of their names (the journal's order of first mention
    /// depends on which app the daemon served first).
    private func finished(at end: Double) -> [AppTimeline] {
        apps.finished(at: end, openTransfers: "goes on").sorted { $0.id < $1.id }
    }
}
