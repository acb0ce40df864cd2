import BackgroundCore
import BackgroundProtocol

extension DaemonEngine {
    /// Pushes ``SystemMessage/state(_:)`` to every connected app whose grant state changed in a
    /// way its runtime decides differently on, before any other message about the change
    /// (docs/core-contract.md, "No round trip for the common case").
    ///
    /// Only the apps an event can have changed are looked at: the app that sent it and the apps
    /// its effects name (a lifecycle move, an expiration, a suspension all come with one). An
    /// app's own begins and ends in the foreground change nothing it decides on, so the common
    /// case pushes nothing; in the background, the budget starting or stopping is pushed.
    func pushGrantStates(
        after effects: [Effect],
        caller: AppID?,
        at now: Instant,
        in state: inout State,
        outbox: inout Outbox
    ) {
        guard !state.pushedGrants.isEmpty else { return }
        var apps: [AppID] = []
        if let caller { apps.append(caller) }
        for effect in effects {
            if let app = effect.audienceApp {
                if !apps.contains(app) { apps.append(app) }
            } else if case .suspend(let app) = effect, !apps.contains(app) {
                apps.append(app)
            }
        }
        if apps.count > 1 { apps.sort() }  // one order in every run: by identifier
        for app in apps {
            guard let pushed = state.pushedGrants[app], let id = state.appLinks[app],
                let session = state.sessions[id]
            else { continue }
            let current = state.core.grantState(of: app, at: now)
            guard current.decidesDifferently(from: pushed) else { continue }
            state.pushedGrants[app] = current
            outbox.send(.system(.state(current)), to: session.link)
        }
    }
}

extension GrantState {
    /// Whether an app's runtime would decide a begin differently on this state than on `old`.
    ///
    /// The next identifier is left out (the app allocates identifiers itself, and a pushed one
    /// only ever moves its allocation forward), and so is the time of reading: a budget that
    /// runs down at the same rate towards the same end is the same budget.
    func decidesDifferently(from old: GrantState) -> Bool {
        if incarnation != old.incarnation || lifecycleState != old.lifecycleState || budgetTicking != old.budgetTicking
            || budgetExpiring != old.budgetExpiring || rule != old.rule
        {
            return true
        }
        if budgetTicking { return measuredAt + budgetRemaining != old.measuredAt + old.budgetRemaining }
        return budgetRemaining != old.budgetRemaining
    }
}
