/// A token that identifies a background task assertion; Apple's `UIBackgroundTaskIdentifier`.
///
/// Identifiers are small integers that increase from 1 within an app, as on iOS.
/// ``invalid`` is what `beginBackgroundTask` returns when no assertion could be granted.
///
/// ```swift
/// var task: UIBackgroundTaskIdentifier = .invalid
/// task = UIApplication.shared.beginBackgroundTask(withName: "Upload") { /* expiring */ }
/// guard task != .invalid else { return }
/// ```
///
/// Linux behaviour: Apple leaves the raw value of `invalid` unpublished (it is an extern
/// constant in UIKit); ours is 0, which iOS never issues to a live task.
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    /// Creates an identifier from its raw value.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Creates an identifier from its raw value (Apple's unlabelled initializer).
    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The identifier of no task: the value returned when an assertion cannot be granted.
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)

    public var description: String { "UIBackgroundTaskIdentifier(rawValue: \(rawValue))" }
}

/// Apple's pre-Swift-4.2 spelling of ``UIBackgroundTaskIdentifier/invalid``.
@available(*, deprecated, renamed: "UIBackgroundTaskIdentifier.invalid")
public let UIBackgroundTaskInvalid = UIBackgroundTaskIdentifier.invalid
