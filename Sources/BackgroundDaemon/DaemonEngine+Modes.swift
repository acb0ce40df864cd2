import BackgroundCore
import BackgroundExecution
import BackgroundProtocol
import Foundation

/// What the daemon's control answers say about background modes, and `bgctl daemon push`.
extension DaemonEngine {
    /// The mode that keeps `app` running in the background: the sentence and its document.
    func keptAwake(_ app: AppID, at now: Instant) -> (text: String, document: [String: Any])? {
        guard let activity = state.withLock({ $0.core.modeKeepingAwake(app) }) else { return nil }
        return (activity.keepsAwakeText(at: now), modeDocument(activity, at: now))
    }

    /// The modes `app` holds, by name, as documents.
    func heldModes(_ app: AppID, in state: State, at now: Instant) -> [[String: Any]] {
        state.core.modeActivities(of: app).map { modeDocument($0, at: now) }
    }

    /// The apps a mode keeps running in the background, by bundle identifier.
    func appsKeptAwake(in state: State, at now: Instant) -> [[String: Any]] {
        state.installed.keys.sorted().compactMap { app in
            state.core.modeKeepingAwake(app).map { activity in
                var row = modeDocument(activity, at: now)
                row["app"] = app.bundleIdentifier
                row["text"] = "\(app): \(activity.keepsAwakeText(at: now))"
                return row
            }
        }
    }

    private func modeDocument(_ activity: ModeActivity, at now: Instant) -> [String: Any] {
        [
            "mode": activity.mode.rawValue,
            "heldSeconds": activity.heldFor(at: now).seconds,
            "since": ISO8601DateFormatter().string(
                from: Date(timeIntervalSince1970: wallClock.unixSeconds(of: activity.since))
            ),
        ]
    }

    /// `  modes audio 12m 5s, location 3s` for the apps table, or nothing.
    static func modesText(_ modes: [[String: Any]]) -> String {
        guard !modes.isEmpty else { return "" }
        let held = modes.map { mode in
            "\(mode["mode"] as? String ?? "?") \(DurationText.format(.seconds(mode["heldSeconds"] as? Double ?? 0)))"
        }
        return "  modes " + held.joined(separator: ", ")
    }

    /// A silent push for `app` (`bgctl daemon push`, a local push agent): the payload is checked
    /// (a JSON object of at most 4096 bytes), the core decides (resume or launch in the
    /// background, the budget, force quit), and the answer says what became of it (`push` in
    /// the JSON: `delivered`, `launching`, `waiting` or `refused`). A refused push is a
    /// negative answer.
    func push(_ app: AppID, payload: String) -> ControlReply {
        guard state.withLock({ $0.installed[app] != nil }) else {
            return reply(.notFound, "\(app) is not installed", ["app": app.bundleIdentifier])
        }
        let checked: RemoteNotificationPayload
        do {
            checked = try RemoteNotificationPayload(json: payload)
        } catch {
            return reply(.invalid, "payload: \(error.reason)", ["app": app.bundleIdentifier, "reason": error.reason])
        }
        let before = clock()
        _ = deliver(.remoteNotification(app, payload: checked.json))
        let now = clock()
        let (outcome, remaining) = state.withLock { state in
            (
                state.core.silentPushOutcome(of: app, since: before),
                state.core.silentPushesRemaining(of: app, at: now)
            )
        }
        let format: (Instant) -> String = { instant in
            instant > now ? "in \(DurationText.format(instant - now))" : "now"
        }
        var refused = false
        if case .refused = outcome { refused = true }
        return reply(
            refused ? .notFound : .ok,
            "\(app): \(outcome.text(formatInstant: format))",
            [
                "app": app.bundleIdentifier, "push": outcome.name, "reason": outcome.reason ?? NSNull(),
                "earliestInSeconds": outcome.earliest.map { max(0, ($0 - now).seconds) as Any } ?? NSNull(),
                "silentPushesRemaining": remaining,
            ]
        )
    }
}
