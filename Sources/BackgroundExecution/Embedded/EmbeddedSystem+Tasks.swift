import BackgroundCore
import Dispatch
import Foundation

/// A launch handler and the queue it runs on.
package struct RegisteredTaskHandler: @unchecked Sendable {
    // Apple's API calls the handler on the app's queue without Sendable; its thread-safety is
    // the app's, as on iOS.
    package let queue: DispatchQueue?
    package let handler: (BGTask) -> Void

    package init(queue: DispatchQueue?, handler: @escaping (BGTask) -> Void) {
        self.queue = queue
        self.handler = handler
    }
}

extension EmbeddedSystem {
    public func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        let registration = RegisteredTaskHandler(queue: queue, handler: launchHandler)
        var registered = false
        let effects = handle(.registerTaskHandler(app, identifier: identifier)) { state, effect in
            if case .taskHandlerRegistered = effect {
                state.taskHandlers[identifier] = registration
                registered = true
            }
        }
        perform(effects.list, at: effects.at)
        return registered
    }

    public func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error) {
        var rejection: SubmissionRejection?
        let effects = handle(.submitTaskRequest(app, request)) { _, effect in
            if case .taskRequestRejected(_, _, let code) = effect { rejection = code }
        }
        perform(effects.list, at: effects.at)
        if let rejection { throw BGTaskScheduler.Error(rejection: rejection) }
    }

    public func cancelTaskRequest(identifier: String) {
        deliver(.cancelTaskRequest(app, identifier: identifier))
    }

    public func cancelAllTaskRequests() {
        deliver(.cancelAllTaskRequests(app))
    }

    public func pendingTaskRequests() -> [TaskRequest] {
        state.withLock { $0.core.pendingRequests(of: app) }
    }

    public func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility? {
        let now = self.now
        return state.withLock { $0.core.eligibility(of: app, identifier: identifier, at: now) }
    }

    public func simulateLaunch(forTaskWithIdentifier identifier: String) {
        deliver(.simulateLaunch(app, identifier: identifier))
    }

    public func simulateExpiration(forTaskWithIdentifier identifier: String) {
        deliver(.simulateExpiration(app, identifier: identifier))
    }

    public func completeTask(_ run: TaskRunID, success: Bool) {
        state.withLock { _ = $0.liveTasks.removeValue(forKey: run) }
        deliver(.completeTask(app, run, success: success))
    }

    public func reportProgress(_ run: TaskRunID, fraction: Double) {
        deliver(.reportTaskProgress(app, run, fraction: fraction))
    }

    public func setMinimumBackgroundFetchInterval(_ interval: Duration?) {
        deliver(.setMinimumBackgroundFetchInterval(app, interval))
    }

    public var supportsBackgroundGPU: Bool { configuration.policy.scheduling.supportsBackgroundGPU }

    public func instant(for date: Date) -> Instant {
        // Measured from now, to the millisecond, so dates computed from `Date()` mean the same
        // distance ahead on a manual clock as on the real one.
        now + .milliseconds(Int64((date.timeIntervalSinceNow * 1000).rounded()))
    }

    public func date(for instant: Instant) -> Date {
        Date(timeIntervalSinceNow: (instant - now).seconds)
    }

    public func log(_ level: LogRecord.Level, _ message: String) {
        configuration.logger.log(level: level.swiftLogLevel, "\(app): \(message)")
    }

    /// The mapping from this system's timeline to wall-clock time, for the store.
    var wallClock: WallClock {
        WallClock(unixSecondsAtOrigin: Date().timeIntervalSince1970 - now.seconds)
    }

    // MARK: Effects

    /// Hands runs to their launch handlers: each on its handler's queue, or a background queue.
    func deliverTaskRuns(_ runs: [TaskRun]) {
        for run in runs {
            if run.request.kind == .fetch {
                deliverFetch(run)
                continue
            }
            let task = UncheckedSendable(BGTask.make(for: run, connection: self))
            let registration = state.withLock { state -> RegisteredTaskHandler? in
                state.liveTasks[run.id] = task
                return state.taskHandlers[run.request.identifier]
            }
            guard let registration else { continue }  // the core faulted already: no handler
            (registration.queue ?? .global()).async { registration.handler(task.value) }
        }
    }

    /// Calls the task's expiration handler on its queue, or, without one, completes it
    /// unsuccessfully (R2.14). Fetch has no expiration handler: its completion handler is due.
    func expireTaskRun(_ id: TaskRunID) {
        let found = state.withLock { state -> (UncheckedSendable<BGTask>, DispatchQueue?)? in
            guard let task = state.liveTasks[id] else { return nil }
            return (task, state.taskHandlers[task.value.identifier]?.queue)
        }
        guard let (task, queue) = found else { return }
        let handler = task.value.takeExpirationHandler()
        guard handler.value != nil else {
            task.value.setTaskCompleted(success: false)
            return
        }
        (queue ?? .global()).async { handler.value?() }
    }

    private func deliverFetch(_ run: TaskRun) {
        let application = state.withLock { $0.application }
        onMainActor { [weak self] in
            guard let self else { return }
            let completion = FetchCompletion(connection: self, run: run.id)
            if let application, let delegate = application.delegate {
                delegate.application(application, performFetchWithCompletionHandler: completion.call)
            } else {
                completion.call(.noData)
            }
        }
    }

    /// Writes changes to the store in one transaction; a failure is logged, never fatal.
    func persist(_ changes: [StoreChange]) {
        guard let store = configuration.store, !changes.isEmpty else { return }
        do {
            try store.apply(changes, clock: wallClock)
        } catch {
            configuration.logger.error("could not persist \(changes.count) change(s): \(error)")
        }
    }
}
