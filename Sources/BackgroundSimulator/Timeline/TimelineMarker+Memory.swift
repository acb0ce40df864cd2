public import BackgroundCore

extension TimelineMarker {
    /// The device lane's marker for a memory pressure report: `memory warning` and `memory
    /// critical` (warnings: each is one reclaim step, so suspended apps may end, assertion holders
    /// get their expiration handlers early, and at `critical` background apps end), `memory
    /// normal` (information). The simulator draws it for ``Simulator/reportMemoryPressure(_:)``
    /// and `bgctl daemon timeline` for the journal's `memoryPressure` events.
    ///
    /// - Parameters:
    ///   - level: The pressure reported.
    ///   - time: When, in seconds from the start of the run.
    public static func memoryPressure(_ level: MemoryPressure, at time: Double) -> TimelineMarker {
        switch level {
        case .normal:
            return TimelineMarker(
                time: time,
                label: "memory normal",
                detail: "memory pressure ended: nothing is reclaimed"
            )
        case .warning:
            return TimelineMarker(
                time: time,
                label: "memory warning",
                severity: .warning,
                detail: "memory pressure (warning): one reclaim step: the least recently used suspended app ends, "
                    + "else background apps holding assertions get their expiration handlers early"
            )
        case .critical:
            return TimelineMarker(
                time: time,
                label: "memory critical",
                severity: .warning,
                detail: "memory pressure (critical): one reclaim step: the least recently used suspended app ends, "
                    + "else expiration handlers run early, else a background app ends; never the foreground app"
            )
        }
    }
}
