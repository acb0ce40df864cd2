import Synchronization

/// Misuse that Apple's frameworks trap on, made observable.
///
/// Every "crash" this library reproduces goes through ``BackgroundFault/hook``. By default it
/// stops the process with Apple's message; a test can install its own hook to capture faults.
///
/// ```swift
/// BackgroundFault.hook = { fault in captured.append(fault.message) }
/// ```
public struct BackgroundFault: Error, Sendable, Hashable, CustomStringConvertible {
    /// Apple's message for the misuse, word for word where Apple has one.
    public let message: String
    /// The API that was misused, for example `performExpiringActivity(withReason:using:)`.
    public let api: String

    /// Creates a fault.
    public init(api: String, message: String) {
        self.api = api
        self.message = message
    }

    public var description: String { "\(api): \(message)" }

    private static let installed = Mutex<(@Sendable (BackgroundFault) -> Void)?>(nil)

    /// The function every fault goes through; `nil` restores the default, which stops the process.
    public static var hook: (@Sendable (BackgroundFault) -> Void)? {
        get { installed.withLock { $0 } }
        set { installed.withLock { $0 = newValue } }
    }

    /// Raises the fault: calls the installed hook, or stops the process with the message.
    public static func raise(_ fault: BackgroundFault) {
        if let hook = installed.withLock({ $0 }) {
            hook(fault)
        } else {
            preconditionFailure(fault.description)
        }
    }
}
