extension BackgroundSystem {
    /// App code began the activity of a background mode (``Event/beginModeActivity(_:_:)``).
    ///
    /// Held only when the app is running, the mode is one of ``BackgroundMode/activityModes`` and
    /// the manifest declares it in `UIBackgroundModes`. Anything else is what iOS does: the
    /// activity does not keep the app running (audio stops with the app's suspension; background
    /// location updates are refused), answered with ``Reply/modeNotHeld(_:reason:)`` and a
    /// warning that names the missing mode.
    mutating func beginModeActivity(
        _ app: AppID,
        _ mode: BackgroundMode,
        at now: Instant,
        into effects: inout [Effect]
    ) -> Reply {
        let index = appIndex[app]
        let declared = index.flatMap { apps[$0].manifest?.backgroundModes } ?? []
        if let reason = Self.modeRefusal(mode, state: state(of: app), declared: declared) {
            return refuseMode(app, mode, reason, into: &effects)
        }
        guard let index else { return refuseMode(app, mode, "the app is not running", into: &effects) }
        if apps[index].modeActivities.contains(where: { $0.mode == mode }) { return .modeHeld(mode) }
        apps[index].modeActivities.append(ModeActivity(mode: mode, since: now))
        apps[index].modeActivities.sort { $0.mode.rawValue < $1.mode.rawValue }  // by name, never by hash
        updateBudgetTicking(index, at: now)
        effects.append(.modeChanged(app, mode, held: true))
        effects.append(.log(LogRecord(.notice, app: app, "'\(mode)' held: the app keeps running in the background")))
        return .modeHeld(mode)
    }

    /// Why an app in `state`, whose manifest declares `declared`, cannot hold an activity of
    /// `mode`; `nil` when it can. The one mode grant rule: the system's begin applies it, and an
    /// app-side view answers from it for now (the simulator, off its main actor).
    public static func modeRefusal(
        _ mode: BackgroundMode,
        state: AppLifecycleState,
        declared: Set<BackgroundMode>
    ) -> String? {
        guard state.isRunning else { return "the app is \(state)" }
        guard mode.isActivity else { return "'\(mode)' is not a mode an activity can hold" }
        guard declared.contains(mode) else {
            let what =
                mode == .location
                ? "background location updates are refused"
                : "the activity does not keep the app running in the background"
            return "UIBackgroundModes does not declare '\(mode)': \(what)"
        }
        return nil
    }

    private func refuseMode(
        _ app: AppID,
        _ mode: BackgroundMode,
        _ reason: String,
        into effects: inout [Effect]
    ) -> Reply {
        effects.append(.log(LogRecord(.warning, app: app, "'\(mode)' not held: \(reason)")))
        return .modeNotHeld(mode, reason: reason)
    }

    /// App code ended the activity of a background mode (``Event/endModeActivity(_:_:)``).
    /// When the last one ends in the background, the app is any background app again: a full
    /// budget for the assertions it holds, then suspension.
    mutating func endModeActivity(_ app: AppID, _ mode: BackgroundMode, at now: Instant, into effects: inout [Effect]) {
        guard let index = appIndex[app],
            let position = apps[index].modeActivities.firstIndex(where: { $0.mode == mode })
        else {
            effects.append(.log(LogRecord(.debug, app: app, "'\(mode)' ended but was not held; ignored")))
            return
        }
        let held = apps[index].modeActivities.remove(at: position)
        effects.append(.modeChanged(app, mode, held: false))
        let duration = held.heldFor(at: now).formattedSeconds
        effects.append(.log(LogRecord(.notice, app: app, "'\(mode)' ended after \(duration) s")))
        guard apps[index].modeActivities.isEmpty, apps[index].state == .background else { return }
        if apps[index].expiration == nil { apps[index].budget.refill(policy.backgroundTimeBudget) }
        updateBudgetTicking(index, at: now)
        settle(index, at: now, into: &effects)
    }

    /// The modes the app holds now, by name; empty for an app that holds none or is not running.
    public func modeActivities(of app: AppID) -> [ModeActivity] {
        appIndex[app].map { apps[$0].modeActivities } ?? []
    }

    /// The mode that keeps the app running in the background now, if one does: the one held
    /// longest (ties by name). `nil` in the foreground, where no mode is needed.
    public func modeKeepingAwake(_ app: AppID) -> ModeActivity? {
        guard let index = appIndex[app], apps[index].state == .background else { return nil }
        return apps[index].modeActivities.min { ($0.since, $0.mode.rawValue) < ($1.since, $1.mode.rawValue) }
    }
}
