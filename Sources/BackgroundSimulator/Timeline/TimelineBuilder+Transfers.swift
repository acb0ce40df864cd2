import BackgroundCore

/// A transfer whose lane entry is still open: its closed segments and the current one (the
/// simulator's timeline, and `bgctl daemon timeline` from the daemon's journal).
package struct OpenTransfer {
    package var name: String
    package var about: String
    package var segments: [TimelineTransfer.Segment] = []
    package var phase: TimelineTransfer.Phase = .waiting
    package var since: Double
    package var detail: String

    /// Opens a transfer, waiting since `since`.
    package init(name: String, about: String, since: Double, detail: String) {
        self.name = name
        self.about = about
        self.since = since
        self.detail = detail
    }

    /// Ends the current segment at `time` and starts another.
    package mutating func enter(_ phase: TimelineTransfer.Phase, at time: Double, detail: String) {
        close(at: time)
        self.phase = phase
        since = time
        self.detail = detail
    }

    package mutating func close(at time: Double) {
        guard time > since || segments.isEmpty else { return }  // a zero-length step is not drawn
        segments.append(TimelineTransfer.Segment(start: since, end: time, phase: phase, detail: detail))
    }

    /// The lane's entry, ended at `time`.
    package func finished(at time: Double, outcome: TimelineTransfer.Outcome?, detail: String) -> TimelineTransfer {
        var copy = self
        copy.close(at: time)
        return TimelineTransfer(name: name, segments: copy.segments, outcome: outcome, detail: about + ": " + detail)
    }
}

extension TimelineBuilder {
    /// Folds a transfer's activity into its app's transfers lane; relaunches are app events.
    mutating func add(_ activity: TransferActivity, at time: Double) {
        let app = apps.lane(activity.app)
        switch activity {
        case .queued(let key, let kind, let size):
            apps.lanes[app]?.transfers[key] = OpenTransfer(
                name: key.identifier,
                about: "\(kind) of \(size) bytes",
                since: time,
                detail: "queued"
            )
        case .waiting(let key, let unmet):
            apps.lanes[app]?.transfers[key]?.detail = TransferActivity.words(unmet)
        case .started(let key, let from):
            apps.lanes[app]?.transfers[key]?.enter(
                .running,
                at: time,
                detail: from == 0 ? "from the start" : "from byte \(from)"
            )
        case .progress(let key, let bytes, let size):
            apps.lanes[app]?.transfers[key]?.detail = "\(bytes) of \(size) bytes"
        case .interrupted(let key, let reason, _):
            apps.lanes[app]?.transfers[key]?.enter(.waiting, at: time, detail: "\(reason); retrying")
        case .paused(let key, let bytes, let unmet):
            apps.lanes[app]?.transfers[key]?.enter(
                .waiting,
                at: time,
                detail: "paused at byte \(bytes): \(TransferActivity.words(unmet))"
            )
        case .completed(let key, let status, let bytes):
            endTransfer(app, key, at: time, outcome: .completed, detail: "HTTP \(status), \(bytes) bytes")
        case .failed(let key, let code, let reason):
            endTransfer(app, key, at: time, outcome: .failed, detail: "error \(code) (\(reason))")
        case .relaunched(_, let sessions):
            apps.lanes[app]?.timeline.markers.append(
                TimelineMarker(
                    time: time,
                    label: "URLSession events",
                    detail: "launched or resumed for the events of " + sessions.joined(separator: ", ")
                )
            )
        case .eventsHandled:
            break
        }
    }

    private mutating func endTransfer(
        _ app: AppID,
        _ key: TransferKey,
        at time: Double,
        outcome: TimelineTransfer.Outcome,
        detail: String
    ) {
        guard let open = apps.lanes[app]?.transfers.removeValue(forKey: key) else { return }
        apps.lanes[app]?.timeline.transfers.append(open.finished(at: time, outcome: outcome, detail: detail))
    }
}
