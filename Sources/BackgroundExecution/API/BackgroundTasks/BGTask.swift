public import Foundation
import Synchronization

/// A background task handed to the app's launch handler; Apple's abstract `BGTask`.
///
/// Do the work, set ``expirationHandler`` to stop it when time runs out, and call
/// ``setTaskCompleted(success:)`` exactly once when done.
///
/// ```swift
/// func handleRefresh(_ task: BGAppRefreshTask) {
///     let operation = RefreshOperation()
///     task.expirationHandler = { operation.cancel() }
///     operation.completionBlock = { task.setTaskCompleted(success: !operation.isCancelled) }
///     queue.addOperation(operation)
/// }
/// ```
open class BGTask: NSObject {
    private struct State {
        var expirationHandler: (() -> Void)?
        var completed = false
    }

    /// The identifier of the request that became this task.
    public let identifier: String
    let run: TaskRunID
    let connection: any SystemConnection
    private let state = Mutex(State())

    init(identifier: String, run: TaskRunID, connection: any SystemConnection) {
        self.identifier = identifier
        self.run = run
        self.connection = connection
        super.init()
    }

    /// Called shortly before the task's time is up, on the queue given at registration.
    ///
    /// Cleared after it is called, and after ``setTaskCompleted(success:)`` (R2.14). Without
    /// one, the system marks the task complete and unsuccessful when its time is up.
    open var expirationHandler: (() -> Void)? {
        get { state.withLock { $0.expirationHandler } }
        set {
            let handler = UncheckedSendable(newValue)
            state.withLock { state in
                if !state.completed { state.expirationHandler = handler.value }
            }
        }
    }

    /// Tells the system the task is done; call it exactly once.
    ///
    /// A second call is ignored, with a log (R2.15). Not calling it before the task's time
    /// expires gets the app ended with `0x8badf00d`.
    ///
    /// - Parameter success: Whether the work succeeded.
    open func setTaskCompleted(success: Bool) {
        let first = state.withLock { state -> Bool in
            defer {
                state.completed = true
                state.expirationHandler = nil
            }
            return !state.completed
        }
        guard first else {
            connection.log(.warning, "setTaskCompleted(success:) called again for \(self); ignored")
            return
        }
        connection.completeTask(run, success: success)
    }

    /// Takes the expiration handler for calling; `nil` if there is none or the task is complete.
    package func takeExpirationHandler() -> UncheckedSendable<(() -> Void)?> {
        UncheckedSendable(
            state.withLock { state in
                defer { state.expirationHandler = nil }
                return state.completed ? nil : state.expirationHandler
            }
        )
    }

    open override var description: String { "<\(type(of: self)): \(identifier)>" }
}

extension BGTask {
    /// The task object handed to the launch handler for a run: the class matches the request's kind.
    package static func make(for run: TaskRun, connection: any SystemConnection) -> BGTask {
        let identifier = run.request.identifier
        switch run.request.kind {
        case .appRefresh, .fetch, .remoteNotification:
            return BGAppRefreshTask(identifier: identifier, run: run.id, connection: connection)
        // A transfer is never a task run (the core refuses such a request); processing is the nearest class.
        case .processing, .transfer:
            return BGProcessingTask(identifier: identifier, run: run.id, connection: connection)
        case .continuedProcessing:
            return BGContinuedProcessingTask(
                identifier: identifier,
                run: run.id,
                connection: connection,
                title: run.request.title,
                subtitle: run.request.subtitle
            )
        }
    }
}

/// The fetch completion handler handed to the delegate: reports once to the system.
package final class FetchCompletion: Sendable {
    private let connection: any SystemConnection
    private let run: TaskRunID

    package init(connection: any SystemConnection, run: TaskRunID) {
        self.connection = connection
        self.run = run
    }

    /// Reports the fetch's result; `.failed` counts as an unsuccessful run.
    package func call(_ result: UIBackgroundFetchResult) {
        connection.completeTask(run, success: result != .failed)
    }
}

/// A refresh task: up to 30 seconds to update the app's content.
open class BGAppRefreshTask: BGTask {}

/// A processing task: minutes of work while the device is idle; expired when it is used.
open class BGProcessingTask: BGTask {}

/// A task continuing work the user started, reporting progress to the user (iOS 26).
///
/// Report progress through ``progress``: a task whose progress does not move is expired as
/// stalled. The user can stop it, which calls the expiration handler.
open class BGContinuedProcessingTask: BGTask, ProgressReporting {
    private let texts: Mutex<(title: String, subtitle: String)>

    /// The task's progress; update `completedUnitCount` and `totalUnitCount` as work advances.
    public let progress: Progress

    init(identifier: String, run: TaskRunID, connection: any SystemConnection, title: String, subtitle: String) {
        self.texts = Mutex((title, subtitle))
        self.progress = ReportingProgress(report: { [connection] fraction in
            connection.reportProgress(run, fraction: fraction)
        })
        super.init(identifier: identifier, run: run, connection: connection)
    }

    /// The title shown to the user.
    open var title: String { texts.withLock { $0.title } }

    /// The subtitle shown to the user.
    open var subtitle: String { texts.withLock { $0.subtitle } }

    /// Changes the title and subtitle shown to the user.
    open func updateTitle(_ title: String, subtitle: String) {
        texts.withLock { $0 = (title, subtitle) }
    }
}

/// A `Progress` that tells the system whenever its fraction moves (Linux has no KVO).
final class ReportingProgress: Progress, @unchecked Sendable {
    private let report: @Sendable (Double) -> Void

    init(report: @escaping @Sendable (Double) -> Void) {
        self.report = report
        super.init(parent: nil, userInfo: nil)
    }

    override var completedUnitCount: Int64 {
        didSet { report(fractionCompleted) }
    }

    override var totalUnitCount: Int64 {
        didSet { report(fractionCompleted) }
    }
}

/// A value moved across threads where Apple's API does the same without `Sendable` (launch
/// handlers, expiration handlers): their thread-safety is the app's, as on iOS.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
