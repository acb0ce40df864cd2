public import BackgroundCore

/// What a control client (`bgctl`, a desktop shell or window manager) asks the daemon.
///
/// The foreground is the desktop's to decide: a shell sends ``open(_:)`` when an app's window
/// gains focus (or the user starts it), ``home`` when the foreground app is sent away (focus
/// lost to the desktop), and ``forceQuit(_:)`` when the user closes an app for good (iOS's
/// swipe up in the app switcher). `bgctl open`, `bgctl home` and `bgctl force-quit` are the
/// same messages from the command line (docs/daemon-protocol.md).
public enum ControlRequest: Sendable, Hashable, Codable {
    /// The daemon: its paths, process control, apps and counts.
    case status
    /// The installed apps and their states.
    case apps
    /// Outstanding assertions, of one app or of all.
    case assertions(AppID?)
    /// Pending and running task requests, of one app or of all.
    case tasks(AppID?)
    /// Why a pending request has not run.
    case why(identifier: String, app: AppID?)
    /// Bring an app to the foreground, launching it if it is not running; clears a force quit.
    case open(AppID)
    /// Send the foreground app (or apps) to the background.
    case home
    /// The user ended the app: it is not launched in the background until opened again.
    case forceQuit(AppID)
    /// Run a pending request now (the debugger's `_simulateLaunchForTaskWithIdentifier:`).
    case simulateLaunch(identifier: String, app: AppID?)
    /// Expire a running task now (the debugger's `_simulateExpirationForTaskWithIdentifier:`).
    case simulateExpiration(identifier: String, app: AppID?)
    /// The termination reports written, newest last.
    case reports
    /// The recorded events since this many seconds ago (for `bgctl timeline`).
    case events(sinceSeconds: Double)
    /// Stream the daemon's log lines on this connection until it closes.
    case followLog
    /// A silent push for the app (its JSON payload, at most 4096 bytes), as APNs would deliver
    /// it: the app is resumed or launched in the background, within the silent-push budget.
    /// This is the socket a local push agent uses (docs/background-modes.md).
    case push(AppID, payload: String)
    /// The device's conditions (power, battery, Low Power Mode, network, idle, unlocked, memory
    /// pressure), each with its source: a probe, the documented default, or an override.
    case deviceConditions
    /// Overrides probes with `key=value` arguments (`power=battery battery=15`; `key=probe`
    /// returns that key to its probe), as `bgctl device set` sends them. Developer mode only.
    case overrideDevice([String])
    /// Returns every condition to its probe (`bgctl device clear`). Developer mode only.
    case clearDeviceOverrides
    /// Reads the manifests directory again, with the checks of the start, and puts it in force
    /// (`bgctl daemon reload`; the daemon also does it when the directory changes).
    case reloadManifests
}

/// The daemon's answer to a ``ControlRequest``: the outcome, a human text and a JSON document.
public struct ControlReply: Sendable, Hashable, Codable {
    /// How the request ended; `bgctl` maps it to its exit status.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// Done, or answered.
        case ok
        /// The answer is negative: no such app, request or task.
        case notFound
        /// The request is malformed or ambiguous.
        case invalid
        /// The daemon refuses it (not permitted for this client).
        case denied
        /// The daemon failed to carry it out.
        case failed
    }

    /// How the request ended.
    public var outcome: Outcome
    /// The answer for a person.
    public var text: String
    /// The same answer as a JSON document.
    public var json: String

    /// Creates a reply.
    public init(_ outcome: Outcome, text: String, json: String) {
        self.outcome = outcome
        self.text = text
        self.json = json
    }
}
