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
        guard let index = appIndex[app], apps[index].state.isRunning else {
            return refuseMode(app, mode, "the app is \(state(of: app))", into: &effects)
        }
        guard mode.isActivity else {
            return refuseMode(app, mode, "'\(mode)' is not a mode an activity can hold", into: &effects)
        }
        guard apps[index].manifest?.backgroundModes.contains(mode) == true else {
            let what =
                mode == .location
                ? "background location updates are refused"
                : "the activity does not keep the app running in the background"
            return refuseMode(app, mode, "UIBackgroundModes does not declare '\(mode)': \(what)", into: &effects)
        }
        if apps[index].modeActivities.contains(where: { $0.mode == mode }) { return .modeHeld(mode) }
        apps[index].modeActivities.append(ModeActivity(mode: mode, since: now))
        apps[index].modeActivities.sort { $0.mode.rawValue < $1.mode.rawValue }  // by name, never by hash
        updateBudgetTicking(index, at: now)
        effects.append(.modeChanged(app, mode, held: true))
        effects.append(.log(LogRecord(.notice, app: app, "'\(mode)' held: the app keeps running in the background")))
        return .modeHeld(mode)
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
