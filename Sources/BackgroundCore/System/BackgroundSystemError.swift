/// An event that the system cannot accept in its current state; nothing was changed.
///
/// ```swift
/// do {
///     try system.handle(.enterBackground(app), at: now)
/// } catch let error {
///     // error.code == .illegalTransition: the app was not inactive
/// }
/// ```
public struct BackgroundSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error; extensible without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case illegalTransition
            case appNotRunning
        }

        private let kind: Kind

        /// The event asks for a lifecycle transition that is not allowed from the current state.
        public static let illegalTransition = Code(kind: .illegalTransition)
        /// The event needs a running app, and the app is not running.
        public static let appNotRunning = Code(kind: .appNotRunning)

        public var description: String { kind.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The app concerned.
    public let app: AppID
    /// The app's state when the event arrived.
    public let state: AppLifecycleState
    /// The event's name, for example `enterBackground`.
    public let event: String

    /// Creates an error.
    public init(code: Code, app: AppID, state: AppLifecycleState, event: String) {
        self.code = code
        self.app = app
        self.state = state
        self.event = event
    }

    public var description: String {
        switch code {
        case .appNotRunning:
            return "\(event) needs \(app) to be running, but it is \(state)"
        default:
            return "\(event) is not allowed for \(app) while it is \(state)"
        }
    }
}
