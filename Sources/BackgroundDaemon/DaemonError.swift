/// Why the daemon could not do something: a code and one line for a person.
///
/// Extensible in the style of swift-service-lifecycle's errors: switch on ``code``.
public struct DaemonError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: String, Sendable, Hashable {
        /// A directory or socket path is unsafe (wrong owner, mode, a link) or cannot be made.
        case unsafeDirectory
        /// A manifest could not be loaded.
        case badManifest
        /// The store could not be opened, read or written.
        case store
        /// The socket could not be bound or served.
        case socket
        /// Another daemon is already serving the socket.
        case alreadyRunning
        /// A setting is invalid (the app user range, a per-app uid).
        case badConfiguration
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, in one line.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
