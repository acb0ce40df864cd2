public import BackgroundCore
import Synchronization

/// Misuse that Apple's frameworks trap on, made observable.
///
/// Every "crash" this library reproduces is raised on the system whose app misused the API
/// (``SystemConnection/raise(_:)``), and carries that app (``app``), so tests running in
/// parallel can tell whose fault it was. The simulator keeps its own (`Simulator.faults`); an
/// ``EmbeddedSystem`` hands them to its configuration's `onFault`, else to the process-wide
/// ``BackgroundFault/hook``, whose default stops the process with Apple's message.
///
/// ```swift
/// BackgroundFault.hook = { fault in captured.append(fault.message) }
/// ```
public struct BackgroundFault: Error, Sendable, Hashable, CustomStringConvertible {
    /// Apple's message for the misuse, word for word where Apple has one.
    public let message: String
    /// The API that was misused, for example `performExpiringActivity(withReason:using:)`.
    public let api: String
    /// The app whose code misused the API, when the system raising the fault knows it.
    public let app: AppID?

    /// Creates a fault.
    public init(api: String, message: String, app: AppID? = nil) {
        self.api = api
        self.message = message
        self.app = app
    }

    public var description: String { "\(api): \(message)" }

    private static let installed = Mutex<(@Sendable (BackgroundFault) -> Void)?>(nil)

    /// The process-wide function faults go through when their system has no hook of its own;
    /// `nil` restores the default, which stops the process.
    public static var hook: (@Sendable (BackgroundFault) -> Void)? {
        get { installed.withLock { $0 } }
        set { installed.withLock { $0 = newValue } }
    }

    /// Raises the fault process-wide: calls the installed hook, or stops the process with the message.
    public static func raise(_ fault: BackgroundFault) {
        if let hook = installed.withLock({ $0 }) {
            hook(fault)
        } else {
            preconditionFailure(fault.description)
        }
    }
}

extension SystemConnection {
    /// Raises a fault of this system's app: by default process-wide, through ``BackgroundFault/hook``.
    public func raise(_ fault: BackgroundFault) {
        BackgroundFault.raise(fault)
    }
}
