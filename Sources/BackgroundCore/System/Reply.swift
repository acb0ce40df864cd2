/// The system's answer to the app call an event reports, returned by
/// ``BackgroundSystem/handle(_:at:into:)``: the value the API call returns or throws.
///
/// Replies are values, not effects: a shell hands a reply back to the caller and carries out the
/// effects. Events that are not calls with an answer (lifecycle, ticks, handler returns) reply
/// nothing (`nil`).
public enum Reply: Sendable, Hashable, Codable {
    /// `beginBackgroundTask` returns this identifier.
    case granted(AssertionID)
    /// `beginBackgroundTask` returns `.invalid`; the answer's ``Effect/assertionDenied(_:name:reason:)``
    /// tells the shell to call the expiration handler.
    case denied(reason: String)
    /// `register(forTaskWithIdentifier:using:launchHandler:)` returns `true`.
    case registered(identifier: String)
    /// `register` returns `false`: the identifier is not permitted (R2.2).
    case refused(identifier: String)
    /// `submit` returns: the request, as the system keeps it, replaced any pending one with its
    /// identifier.
    case accepted(TaskRequest)
    /// `submit` throws `BGTaskScheduler.Error` with this code.
    case rejected(identifier: String, SubmissionRejection)
    /// The mode's activity keeps the app running in the background (``ModeActivity``).
    case modeHeld(BackgroundMode)
    /// The activity does not keep the app running: the mode is not declared in
    /// `UIBackgroundModes`, is not an activity, or the app is not running. For `location` in the
    /// background this is iOS's refusal of background updates.
    case modeNotHeld(BackgroundMode, reason: String)
}

/// Why the system starts an app's process.
public enum LaunchReason: String, Sendable, Hashable, Codable {
    /// The user opened the app.
    case user
    /// The shell reported a launch in the background (``Event/launch(_:_:)`` with `.background`).
    case system
    /// Task requests fell due for an app that was not running (R2.16).
    case tasks
}

/// Which of an app's processes: the first launch is 1, and every launch adds one.
///
/// Events from an app's objects are only ever applied to the incarnation that made them: a
/// shell drops what an ended process still says, and effects that start or thaw a process name
/// it, so a handler of an ended process never runs for its successor.
public struct Incarnation: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: Int

    /// Creates an incarnation number.
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static func < (lhs: Incarnation, rhs: Incarnation) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "incarnation \(rawValue)" }
}
