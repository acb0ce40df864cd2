import BackgroundCore
import Dispatch
import Foundation

extension EmbeddedSystem {
    public func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        let registration = RegisteredTaskHandler(queue: queue, handler: launchHandler)
        let answer = handle(.registerTaskHandler(app, identifier: identifier)) { state, reply in
            state.tables.recordRegistration(reply, identifier: identifier, registration)
        }
        perform(answer.list, at: answer.at)
        if case .registered = answer.reply { return true }
        return false
    }

    /// Submits a request; it is in the store before this returns.
    ///
    /// A store that cannot take the request (full disk, a read-only file, a failing trigger)
    /// fails the submission with `BGTaskScheduler.Error.unavailable`, and the system is left
    /// as it was before the call: the request is neither pending nor stored.
    public func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error) {
        let now = self.now
        var storeFailure: (any Error)?
        let (reply, effects) = state.withLock { state -> (Reply?, [Effect]) in
            let before = configuration.store == nil ? nil : state.core
            let reply = state.handleInfallible(.submitTaskRequest(app, request), at: now)
            if let before, let error = persistBuffered(&state, keepingFailedChanges: false) {
                state.core = before
                state.buffer.removeAll(keepingCapacity: true)
                storeFailure = error
                return (nil, [])
            }
            return (reply, state.takeEffects())
        }
        perform(effects, at: now)
        if case .rejected(_, let code) = reply { throw BGTaskScheduler.Error(rejection: code) }
        if let storeFailure {
            let reason = "the request could not be stored: \(storeFailure)"
            configuration.logger.error("\(app): submit \"\(request.identifier)\" failed: \(reason)")
            throw BGTaskScheduler.Error(.unavailable, reason: reason)
        }
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

    public func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation? {
        let now = self.now
        return state.withLock { $0.core.explanation(of: app, identifier: identifier, at: now) }
    }

    public func simulateLaunch(forTaskWithIdentifier identifier: String) {
        deliver(.simulateLaunch(app, identifier: identifier))
    }

    public func simulateExpiration(forTaskWithIdentifier identifier: String) {
        deliver(.simulateExpiration(app, identifier: identifier))
    }

    public func completeTask(_ run: TaskRunID, success: Bool) {
        forgetTask(run)
        deliver(.completeTask(app, run, success: success))
    }

    public func reportProgress(_ run: TaskRunID, fraction: Double) {
        deliver(.reportTaskProgress(app, run, fraction: fraction))
    }

    public func setMinimumBackgroundFetchInterval(_ interval: Duration?) {
        deliver(.setMinimumBackgroundFetchInterval(app, interval))
    }

    public func beginModeActivity(_ mode: BackgroundMode) -> Reply {
        do {
            return try send(.beginModeActivity(app, mode)) ?? .modeNotHeld(mode, reason: "no answer")
        } catch {
            return .modeNotHeld(mode, reason: "\(error)")
        }
    }

    public func endModeActivity(_ mode: BackgroundMode) {
        deliver(.endModeActivity(app, mode))
    }

    /// Delivers a silent push to this app, as APNs would: in the foreground it reaches
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` at once; in the
    /// background only with `UIBackgroundModes` `remote-notification`, within the silent-push
    /// budget, and the completion handler must be called within 30 s. `bgctl push` and a local
    /// push agent reach it through the control channel (docs/background-modes.md).
    ///
    /// - Returns: What became of it: delivered, waiting for the app's launch, waiting for the
    ///   silent-push budget or a factor, or refused with the reason.
    @discardableResult
    public func deliverRemoteNotification(_ payload: RemoteNotificationPayload) -> SilentPushOutcome {
        let app = self.app
        var outcome = SilentPushOutcome.refused("the event was not handled")
        let answer = handle(.remoteNotification(app, payload: payload.json)) { state, _ in
            outcome = state.core.silentPushOutcome(of: app, since: state.core.now)
        }
        perform(answer.list, at: answer.at)
        return outcome
    }

    /// The modes this app holds now, by name (``BackgroundCore/ModeActivity``).
    public var modeActivities: [ModeActivity] { state.withLock { $0.core.modeActivities(of: app) } }

    public var supportsBackgroundGPU: Bool { configuration.policy.scheduling.supportsBackgroundGPU }

    public func instant(for date: Date) -> Instant {
        // Measured from now, so dates computed from `Date()` mean the same distance ahead on a
        // manual clock as on the real one; the one conversion (SystemTime).
        SystemTime.instant(for: date, now: now)
    }

    public func date(for instant: Instant) -> Date {
        SystemTime.date(for: instant, now: now)
    }

    public func log(_ level: LogRecord.Level, _ message: String) {
        configuration.logger.log(level: level.swiftLogLevel, "\(app): \(message)")
    }

    /// Raises a fault of this system's app: to ``Configuration/onFault`` if set, else
    /// process-wide, through ``BackgroundFault/hook``.
    public func raise(_ fault: BackgroundFault) {
        if let onFault = configuration.onFault {
            onFault(fault)
        } else {
            BackgroundFault.raise(fault)
        }
    }

    /// The mapping from this system's timeline to wall-clock time, for the store.
    var wallClock: WallClock {
        WallClock(unixSecondsAtOrigin: Date().timeIntervalSince1970 - now.seconds)
    }

    /// Writes the store changes among the buffered effects, in one transaction, while the
    /// state is locked: the store then changes in the order the core decided, and a caller
    /// that must fail when its changes were not written (``submitTaskRequest(_:)``) learns it
    /// before the state is unlocked.
    ///
    /// Changes an earlier write could not store are written first, in the same transaction.
    /// On a failure the changes are kept for the next write when `keepingFailedChanges` (the
    /// core has already moved on, and a later write may succeed: nothing is dropped while the
    /// process runs), or dropped when the caller undoes the event that made them.
    ///
    /// - Parameter flushing: Whether to retry kept changes even when there are no new ones.
    /// - Returns: The store's error when the buffered changes could not be written; `nil` when
    ///   they were, or there were none.
    func persistBuffered(_ state: inout State, keepingFailedChanges: Bool, flushing: Bool = false) -> (any Error)? {
        guard let store = configuration.store else { return nil }
        let changes = state.buffer.compactMap { effect -> StoreChange? in
            if case .persist(let change) = effect { change } else { nil }
        }
        guard !changes.isEmpty || (flushing && !state.unsavedChanges.isEmpty) else { return nil }
        do {
            try store.apply(state.unsavedChanges + changes, clock: wallClock)
            state.unsavedChanges.removeAll()
            return nil
        } catch {
            if keepingFailedChanges {
                state.unsavedChanges += changes
                configuration.logger.error(
                    "\(app): could not store \(state.unsavedChanges.count) change(s), kept to retry with the next write: \(error)"
                )
            }
            return error
        }
    }

    /// On a clean exit: writes what earlier writes could not, then checkpoints the store so its
    /// main file alone holds everything (a copy of it loses nothing).
    func closeStore() {
        guard let store = configuration.store else { return }
        let unsaved = state.withLock { state -> Int in
            state.buffer.removeAll(keepingCapacity: true)
            _ = persistBuffered(&state, keepingFailedChanges: true, flushing: true)
            return state.unsavedChanges.count
        }
        if unsaved > 0 {
            configuration.logger.error("\(app): \(unsaved) change(s) could not be stored and are lost at exit")
        }
        do {
            try store.checkpoint()
        } catch {
            configuration.logger.warning(
                "\(app): could not checkpoint the store (its -wal file keeps the data): \(error)"
            )
        }
    }
}
