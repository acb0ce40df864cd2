public import Foundation

extension BGTaskScheduler {
    /// Why a submission failed; behaves like Foundation's `URLError`.
    ///
    /// ```swift
    /// do {
    ///     try BGTaskScheduler.shared.submit(request)
    /// } catch BGTaskScheduler.Error.notPermitted {
    ///     // add the identifier to BGTaskSchedulerPermittedIdentifiers
    /// } catch let error as BGTaskScheduler.Error {
    ///     switch error.code {
    ///     case .tooManyPendingTaskRequests: break
    ///     default: break
    ///     }
    /// }
    /// ```
    ///
    /// `(error as NSError).domain` is `BGTaskSchedulerErrorDomain` and `.code` Apple's raw value.
    public struct Error: Swift.Error, CustomNSError, Hashable, Sendable, CustomStringConvertible {
        /// Apple's error codes, with Apple's raw values (S12).
        public enum Code: Int, Sendable, Hashable {
            /// Background work is unavailable (Background App Refresh off, restricted).
            case unavailable = 1
            /// Too many pending requests of this type: 1 refresh, 10 processing.
            case tooManyPendingTaskRequests = 2
            /// The identifier or background mode is not permitted, or a resource is unavailable.
            case notPermitted = 3
            /// A continued-processing request with strategy `.fail` could not start at once.
            case immediateRunIneligible = 4
        }

        /// The code.
        public let code: Code

        /// Why, when this system knows more than Apple's code says (for example a store that
        /// could not be written); it is `NSLocalizedFailureReasonErrorKey` in the `NSError`.
        /// Errors with the same code are equal whatever their reasons.
        public let failureReason: String?

        /// Creates an error with a code.
        public init(_ code: Code) {
            self.code = code
            self.failureReason = nil
        }

        package init(_ code: Code, reason: String) {
            self.code = code
            self.failureReason = reason
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

        public func hash(into hasher: inout Hasher) { hasher.combine(code) }

        /// `BGTaskSchedulerErrorDomain`.
        public static var errorDomain: String { "BGTaskSchedulerErrorDomain" }

        public var errorCode: Int { code.rawValue }

        public var errorUserInfo: [String: Any] {
            var info: [String: Any] = [NSLocalizedDescriptionKey: description]
            if let failureReason { info[NSLocalizedFailureReasonErrorKey] = failureReason }
            return info
        }

        public var description: String {
            let explanation: String
            switch code {
            case .unavailable:
                explanation = "background task scheduling is unavailable (Background App Refresh is off or restricted)"
            case .tooManyPendingTaskRequests: explanation = "too many pending task requests of this type"
            case .notPermitted:
                explanation = "not permitted: check BGTaskSchedulerPermittedIdentifiers and UIBackgroundModes"
            case .immediateRunIneligible: explanation = "the task could not start immediately"
            }
            if let failureReason { return "BGTaskSchedulerErrorDomain Code=\(code.rawValue): \(failureReason)" }
            return "BGTaskSchedulerErrorDomain Code=\(code.rawValue): \(explanation)"
        }

        /// `catch BGTaskScheduler.Error.unavailable`.
        public static var unavailable: Code { .unavailable }
        /// `catch BGTaskScheduler.Error.tooManyPendingTaskRequests`.
        public static var tooManyPendingTaskRequests: Code { .tooManyPendingTaskRequests }
        /// `catch BGTaskScheduler.Error.notPermitted`.
        public static var notPermitted: Code { .notPermitted }
        /// `catch BGTaskScheduler.Error.immediateRunIneligible`.
        public static var immediateRunIneligible: Code { .immediateRunIneligible }

        package init(rejection: SubmissionRejection) {
            self.init(Code(rawValue: rejection.rawValue) ?? .unavailable)
        }
    }
}

/// Lets `catch BGTaskScheduler.Error.notPermitted` match, as `catch URLError.cancelled` does.
public func ~= (code: BGTaskScheduler.Error.Code, error: any Error) -> Bool {
    (error as? BGTaskScheduler.Error)?.code == code
}
