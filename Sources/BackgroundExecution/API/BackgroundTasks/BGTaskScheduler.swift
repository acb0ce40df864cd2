public import Dispatch
import Foundation

/// Schedules background tasks; Apple's `BGTaskScheduler`.
///
/// Register a launch handler for every permitted identifier before the app finishes launching,
/// then submit requests; the system launches (or resumes) the app when conditions allow and
/// calls the handler with the task.
///
/// ```swift
/// BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.refresh", using: nil) { task in
///     handleRefresh(task as! BGAppRefreshTask)
/// }
/// try BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: "com.example.refresh"))
/// ```
///
/// Linux behaviour: `shared` talks to the system behind `UIApplication.shared`; misuse that
/// crashes on iOS (late or double registration, submitting without a handler) goes through
/// ``BackgroundFault/hook`` with Apple's message.
public final class BGTaskScheduler: Sendable {
    /// The system this scheduler talks to.
    public let connection: any SystemConnection

    /// Creates a scheduler for a given system (for tests and injected code).
    public init(connection: any SystemConnection) {
        self.connection = connection
    }

    /// The app's scheduler, connected to the system behind `UIApplication.shared`: in the
    /// simulator, the scheduler of the simulated app whose code is running.
    public static var shared: BGTaskScheduler {
        UIApplication.shared.taskScheduler
    }

    /// The resources background tasks may use on this device (iOS 26).
    public static var supportedResources: BGContinuedProcessingTaskRequest.Resources {
        shared.connection.supportsBackgroundGPU ? .gpu : []
    }

    /// Registers the launch handler for an identifier.
    ///
    /// - Parameters:
    ///   - identifier: One of `BGTaskSchedulerPermittedIdentifiers`.
    ///   - queue: Where the launch and expiration handlers run; `nil` means a background queue
    ///     (each call may then be on a different thread).
    ///   - launchHandler: Called with the task; downcast it to its concrete class.
    /// - Returns: `false` if the identifier is not permitted (R2.2). Registering after launch
    ///   finished, or twice, is a fault with Apple's message.
    @discardableResult
    public func register(
        forTaskWithIdentifier identifier: String,
        using queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        connection.registerTaskHandler(identifier: identifier, queue: queue, launchHandler: launchHandler)
    }

    /// Submits a request; a pending request with the same identifier is replaced (R2.5).
    ///
    /// - Throws: ``Error`` with Apple's code: `notPermitted`, `unavailable`,
    ///   `tooManyPendingTaskRequests` or `immediateRunIneligible`. On Linux, a system with a
    ///   store also throws `unavailable` when the store cannot take the request (its
    ///   ``Error/failureReason`` says why); nothing of the submission remains then.
    public func submit(_ taskRequest: BGTaskRequest) throws {
        try connection.submitTaskRequest(request(from: taskRequest))
    }

    /// Cancels the pending request with this identifier, if any.
    public func cancel(taskRequestWithIdentifier identifier: String) {
        connection.cancelTaskRequest(identifier: identifier)
    }

    /// Cancels every pending request of the app.
    public func cancelAllTaskRequests() {
        connection.cancelAllTaskRequests()
    }

    /// Calls `completionHandler`, on a background queue, with copies of the pending requests.
    @preconcurrency
    public func getPendingTaskRequests(completionHandler: @escaping @Sendable ([BGTaskRequest]) -> Void) {
        connection.pendingTaskRequests { requests in
            DispatchQueue.global().async { completionHandler(self.copies(of: requests)) }
        }
    }

    /// Copies of the pending requests (submitted, not yet run).
    ///
    /// Runs on the caller's actor (as Apple's async import of `getPendingTaskRequests` may be
    /// called from any), so main-actor code reads them without leaving the main actor.
    ///
    /// The calling thread never blocks: where the system cannot answer on it at once (the
    /// simulator, from off its main actor), the call waits for the answer as a suspension.
    nonisolated(nonsending) public func pendingTaskRequests() async -> [BGTaskRequest] {
        let connection = self.connection
        let requests = await withCheckedContinuation { continuation in
            connection.pendingTaskRequests { continuation.resume(returning: $0) }
        }
        return copies(of: requests)
    }

    /// Why a pending request has not run, and the earliest it could: no Apple API has this.
    ///
    /// - Returns: `nil` if nothing is pending with that identifier.
    public func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility? {
        connection.eligibility(forTaskWithIdentifier: identifier)
    }

    /// Everything about a request identifier, beyond Apple's API: why it waits now, its recent
    /// runs and what held each back (``RequestHistory``), the changes that would let it run
    /// (computed by the core on a copy of itself) and the likely range of its run (the
    /// project's own estimate).
    ///
    /// ```swift
    /// let explanation = BGTaskScheduler.shared.explanation(forTaskWithIdentifier: "com.example.cleanup")
    /// explanation?.history.runs.last?.waited(for: .externalPower)   // how long the last run waited for power
    /// ```
    ///
    /// - Returns: `nil` if nothing is pending with that identifier and no run is recorded.
    public func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation? {
        connection.explanation(forTaskWithIdentifier: identifier)
    }

    /// The debugger's `_simulateLaunchForTaskWithIdentifier:` (S13): runs a pending request now.
    public func _simulateLaunchForTaskWithIdentifier(_ identifier: String) {
        connection.simulateLaunch(forTaskWithIdentifier: identifier)
    }

    /// The debugger's `_simulateExpirationForTaskWithIdentifier:` (S13): expires a running task now.
    public func _simulateExpirationForTaskWithIdentifier(_ identifier: String) {
        connection.simulateExpiration(forTaskWithIdentifier: identifier)
    }

    private func request(from taskRequest: BGTaskRequest) -> TaskRequest {
        var request = TaskRequest(
            identifier: taskRequest.identifier,
            kind: taskRequest.kind,
            earliestBegin: taskRequest.earliestBeginDate.map(connection.instant(for:))
        )
        if let processing = taskRequest as? BGProcessingTaskRequest {
            request.requiresNetworkConnectivity = processing.requiresNetworkConnectivity
            request.requiresExternalPower = processing.requiresExternalPower
        }
        if let continued = taskRequest as? BGContinuedProcessingTaskRequest {
            request.title = continued.title
            request.subtitle = continued.subtitle
            request.strategy = continued.strategy == .fail ? .fail : .queue
            request.requiresGPU = continued.requiredResources.contains(.gpu)
        }
        return request
    }

    private func copies(of requests: [TaskRequest]) -> [BGTaskRequest] {
        requests.map { request in
            let copy: BGTaskRequest
            switch request.kind {
            case .appRefresh, .fetch, .remoteNotification, .transfer:  // the last three are never listed
                copy = BGAppRefreshTaskRequest(identifier: request.identifier)
            case .processing:
                let processing = BGProcessingTaskRequest(identifier: request.identifier)
                processing.requiresNetworkConnectivity = request.requiresNetworkConnectivity
                processing.requiresExternalPower = request.requiresExternalPower
                copy = processing
            case .continuedProcessing:
                let continued = BGContinuedProcessingTaskRequest(
                    identifier: request.identifier,
                    title: request.title,
                    subtitle: request.subtitle
                )
                continued.strategy = request.strategy == .fail ? .fail : .queue
                continued.requiredResources = request.requiresGPU ? .gpu : []
                copy = continued
            }
            copy.earliestBeginDate = request.earliestBegin.map(connection.date(for:))
            return copy
        }
    }
}
