import BackgroundCore
package import BackgroundProtocol
import Dispatch
import Foundation

extension EmbeddedSystem {
    // MARK: The app runtime's transport: messages to the core in this process

    /// Hands the event to the core and carries out its effects; one the core refuses is logged
    /// at debug level (nothing waits for its answer).
    package func sendOneWay(_ event: Event) {
        deliver(event)
    }

    /// Hands the event to the core under the system's lock, records the reply in the tables under
    /// the same lock, then carries out the effects.
    ///
    /// A submitted request is in the store before this returns: a store that cannot take it (a
    /// full disk, a read-only file, a failing trigger) fails the exchange, and the system is left
    /// as it was before the call (the request is neither pending nor stored). Other changes the
    /// store cannot take yet are written with the next write.
    package func exchange(
        _ event: Event,
        recording: @escaping @Sendable (Reply?, inout RuntimeTables) -> Void
    ) -> ExchangeOutcome {
        let now = self.now
        let atomic: Bool
        if case .submitTaskRequest = event { atomic = configuration.store != nil } else { atomic = false }
        var failure: String?
        let (reply, effects) = state.withLock { state -> (Reply?, [Effect]) in
            let before = atomic ? state.core : nil
            state.buffer.removeAll(keepingCapacity: true)
            let reply: Reply?
            do {
                reply = try state.exchange(event, at: now)
            } catch {
                state.buffer.removeAll(keepingCapacity: true)
                failure = "\(error)"
                return (nil, [])
            }
            if let before, let error = persistBuffered(&state, keepingFailedChanges: false) {
                state.core = before
                state.buffer.removeAll(keepingCapacity: true)
                failure = "the request could not be stored: \(error)"
                return (nil, [])
            }
            if !atomic { _ = persistBuffered(&state, keepingFailedChanges: true) }
            recording(reply, &state.tables)
            return (reply, state.takeEffects())
        }
        perform(effects, at: now)
        if let failure { return .failed(failure) }
        return .answered(reply)
    }

    /// Answers at once, from the core in this process.
    package func ask(_ query: AppQuery, reply: @escaping @Sendable (AppQueryAnswer?) -> Void) {
        let now = self.now
        reply(state.withLock { $0.core.answer(query, of: app, at: now) })
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
