public import Foundation

/// A request to run a background task later; Apple's abstract `BGTaskRequest`.
///
/// Submit one of its subclasses with ``BGTaskScheduler/submit(_:)``. Requests are copied on
/// submission and when read back, so changing one afterwards has no effect (R2.8).
///
/// Linux behaviour: `earliestBeginDate` is converted to the system's timeline when submitted,
/// measured from now (so `Date(timeIntervalSinceNow: 900)` means "15 minutes from now" on a
/// ``ManualClock`` too).
open class BGTaskRequest: NSObject, NSCopying {
    /// The task's identifier, one of `BGTaskSchedulerPermittedIdentifiers`.
    public let identifier: String

    /// The task does not start before this date (R2.7); `nil` means no delay.
    open var earliestBeginDate: Date?

    init(identifier: String) {
        self.identifier = identifier
        super.init()
    }

    /// A copy of the request.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = BGTaskRequest(identifier: identifier)
        copy.earliestBeginDate = earliestBeginDate
        return copy
    }

    open override var description: String {
        "<\(type(of: self)): \(identifier), earliestBeginDate: \(earliestBeginDate.map { "\($0)" } ?? "(null)")>"
    }

    /// The kind the system schedules it as.
    var kind: TaskKind { .appRefresh }
}

/// A request to refresh the app's content shortly before the user is likely to open it
/// (`UIBackgroundModes` `fetch`); the task runs for up to 30 s.
open class BGAppRefreshTaskRequest: BGTaskRequest {
    /// Creates a refresh request.
    public override init(identifier: String) {
        super.init(identifier: identifier)
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = BGAppRefreshTaskRequest(identifier: identifier)
        copy.earliestBeginDate = earliestBeginDate
        return copy
    }
}

/// A request for minutes of processing while the device is idle (`UIBackgroundModes`
/// `processing`), optionally only on external power and with a network connection.
open class BGProcessingTaskRequest: BGTaskRequest {
    /// Run only when the device has a network connection (default `false`, R2.10).
    open var requiresNetworkConnectivity = false
    /// Run only on external power (default `false`, R2.11).
    open var requiresExternalPower = false

    /// Creates a processing request.
    public override init(identifier: String) {
        super.init(identifier: identifier)
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = BGProcessingTaskRequest(identifier: identifier)
        copy.earliestBeginDate = earliestBeginDate
        copy.requiresNetworkConnectivity = requiresNetworkConnectivity
        copy.requiresExternalPower = requiresExternalPower
        return copy
    }

    override var kind: TaskKind { .processing }
}

/// A request to continue work the user started, with its progress shown to the user (iOS 26).
///
/// It starts at once from the foreground; `earliestBeginDate` is ignored in favour of now.
open class BGContinuedProcessingTaskRequest: BGTaskRequest {
    /// What to do when the task cannot start at once.
    public enum SubmissionStrategy: Int, Sendable, Hashable {
        /// Fail with `immediateRunIneligible` (Apple's raw value 0).
        case fail = 0
        /// Join the back of the queue (Apple's raw value 1; the default).
        case queue = 1
    }

    /// Resources the task needs.
    public struct Resources: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Background GPU access; check ``BGTaskScheduler/supportedResources`` first.
        public static let gpu = Resources(rawValue: 1 << 0)
    }

    /// The title shown to the user.
    open var title: String
    /// The subtitle shown to the user.
    open var subtitle: String
    /// What to do when the task cannot start at once (default `.queue`).
    open var strategy: SubmissionStrategy = .queue
    /// Resources the task needs (default none).
    open var requiredResources: Resources = []

    /// Creates a continued-processing request.
    public init(identifier: String, title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
        super.init(identifier: identifier)
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = BGContinuedProcessingTaskRequest(identifier: identifier, title: title, subtitle: subtitle)
        copy.earliestBeginDate = earliestBeginDate
        copy.strategy = strategy
        copy.requiredResources = requiredResources
        return copy
    }

    override var kind: TaskKind { .continuedProcessing }
}
