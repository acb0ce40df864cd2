/// The kind of background task a request asks for, with its Apple class.
public enum TaskKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `BGAppRefreshTaskRequest`: short refreshes ahead of predicted use (`UIBackgroundModes` `fetch`).
    case appRefresh
    /// `BGProcessingTaskRequest`: minutes of work while the device is idle (`processing`).
    case processing
    /// `BGContinuedProcessingTaskRequest` (iOS 26): work the user started, shown with progress.
    case continuedProcessing
    /// Legacy background fetch (`setMinimumBackgroundFetchInterval(_:)`, iOS 7–12).
    case fetch
    /// A silent push (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`,
    /// `UIBackgroundModes` `remote-notification`).
    case remoteNotification
    /// A background `URLSession` transfer, as ``TransferQueue`` explains it; never submitted as
    /// a task request (the core refuses one with `notPermitted`).
    case transfer

    public var description: String { rawValue }

    /// Whether the system hands runs of this kind to the app delegate with a completion handler
    /// (legacy fetch, silent pushes) rather than to a `BGTaskScheduler` launch handler: no
    /// registration is needed, and the app never submits or sees them as pending requests.
    public var isDelegateCallback: Bool { self == .fetch || self == .remoteNotification }
}

/// A pending request for background time, as the system keeps it.
///
/// Requests are one-shot (R2.9): when the task runs, the request is gone; apps resubmit.
///
/// ```swift
/// var refresh = TaskRequest(identifier: "com.example.news.refresh", kind: .appRefresh)
/// refresh.earliestBegin = now + .seconds(15 * 60)
/// ```
public struct TaskRequest: Sendable, Hashable, Codable {
    /// How a continued-processing request behaves when it cannot start at once (iOS 26).
    public enum SubmissionStrategy: Int, Sendable, Hashable, Codable {
        /// Fail with `immediateRunIneligible` (Apple's raw value 0).
        case fail = 0
        /// Join the back of the queue (Apple's raw value 1, the default).
        case queue = 1
    }

    /// The identifier, one of the app's `BGTaskSchedulerPermittedIdentifiers`.
    public var identifier: String
    /// What kind of task it is.
    public var kind: TaskKind
    /// The task will not start before this instant (R2.7); `nil` means no delay.
    public var earliestBegin: Instant?
    /// Processing only: run only with a network connection (R2.10).
    public var requiresNetworkConnectivity: Bool
    /// Processing only: run only on external power (R2.11).
    public var requiresExternalPower: Bool
    /// Continued processing only: the title and subtitle shown to the user.
    public var title: String
    /// Continued processing only: the subtitle shown to the user.
    public var subtitle: String
    /// Continued processing only: what to do when it cannot start at once.
    public var strategy: SubmissionStrategy
    /// Continued processing only: whether it needs the GPU (`Resources.gpu`).
    public var requiresGPU: Bool
    /// When the request was submitted.
    public var submittedAt: Instant
    /// Silent pushes only: the notification's payload, as JSON text (`userInfo`).
    public var payload: String = ""

    /// Creates a request with Apple's defaults (no delay, no requirements, strategy `.queue`).
    public init(
        identifier: String,
        kind: TaskKind,
        earliestBegin: Instant? = nil,
        requiresNetworkConnectivity: Bool = false,
        requiresExternalPower: Bool = false,
        title: String = "",
        subtitle: String = "",
        strategy: SubmissionStrategy = .queue,
        requiresGPU: Bool = false,
        submittedAt: Instant = .zero
    ) {
        self.identifier = identifier
        self.kind = kind
        self.earliestBegin = earliestBegin
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
        self.requiresExternalPower = requiresExternalPower
        self.title = title
        self.subtitle = subtitle
        self.strategy = strategy
        self.requiresGPU = requiresGPU
        self.submittedAt = submittedAt
    }
}

/// Why the system refused a submission: Apple's `BGTaskScheduler.Error.Code`, raw values included.
public enum SubmissionRejection: Int, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Background work is unavailable: Background App Refresh off or restricted, or the app
    /// cannot schedule (raw value 1).
    case unavailable = 1
    /// Too many pending requests of this type: 1 refresh, 10 processing (raw value 2).
    case tooManyPendingTaskRequests = 2
    /// Not permitted: identifier not in `BGTaskSchedulerPermittedIdentifiers`, or the
    /// `UIBackgroundModes` entry missing, or a resource not available (raw value 3).
    case notPermitted = 3
    /// A continued-processing request with strategy `.fail` that could not start at once (raw value 4).
    case immediateRunIneligible = 4

    public var description: String {
        switch self {
        case .unavailable: return "unavailable"
        case .tooManyPendingTaskRequests: return "tooManyPendingTaskRequests"
        case .notPermitted: return "notPermitted"
        case .immediateRunIneligible: return "immediateRunIneligible"
        }
    }
}
