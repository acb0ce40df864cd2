public import BackgroundCore

/// A background mode an app holds, as `bgctl status --json` and `bgctl why --json` show it.
public struct HeldModeDocument: Codable, Sendable, Hashable {
    /// The mode's `UIBackgroundModes` name (`audio`, `location`, `voip`, ...).
    public var mode: String
    /// When the app began it, as an ISO 8601 date.
    public var since: String
    /// How long the app has held it, in seconds.
    public var heldSeconds: Double

    /// Creates the document of `activity` at `now`, its start written by `formatInstant`.
    public init(_ activity: ModeActivity, at now: Instant, formatInstant: (Instant) -> String) {
        self.mode = activity.mode.rawValue
        self.since = formatInstant(activity.since)
        self.heldSeconds = activity.heldFor(at: now).seconds
    }
}

/// The JSON answer of `bgctl push --json`: what became of the silent push.
public struct PushDocument: Codable, Sendable, Hashable {
    /// The app pushed to.
    public var app: AppID
    /// `delivered`, `launching`, `waiting` or `refused` (``SilentPushOutcome/name``).
    public var outcome: String
    /// Why it was refused, or what it waits for (the deciding factor); `nil` when delivered.
    public var reason: String?
    /// For a waiting push: the earliest it could be delivered, as an ISO 8601 date.
    public var earliest: String?
    /// Silent pushes the app may still receive in the background in the current window.
    public var silentPushesRemaining: Int

    /// Creates the document.
    public init(app: AppID, outcome: String, reason: String?, earliest: String?, silentPushesRemaining: Int) {
        self.app = app
        self.outcome = outcome
        self.reason = reason
        self.earliest = earliest
        self.silentPushesRemaining = silentPushesRemaining
    }
}
