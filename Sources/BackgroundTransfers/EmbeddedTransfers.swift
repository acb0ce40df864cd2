import AsyncHTTPClient
public import BackgroundCore
import Foundation
public import Logging
import Synchronization

/// The transfer service of embedded mode: an app's background transfers run in its own process,
/// through ``TransferRun``, checkpointed to a store, and resume from their checkpoint when the app
/// recreates its session at its next launch (as iOS reassociates a session by its identifier).
///
/// ```swift
/// let transfers = try EmbeddedTransfers(configuration: .init(
///     app: "com.example.reader",
///     container: TransferContainer(root: EmbeddedTransfers.defaultContainer(for: "com.example.reader")),
///     store: try BackgroundStore(path: statePath)))
/// URLSession.bootstrap(transfers)   // background sessions now run through it
/// ```
///
/// One service serves one app: calls naming another app see nothing and change nothing.
public final class EmbeddedTransfers: TransferService {
    /// How the service is set up.
    public struct Configuration: Sendable {
        /// The app whose transfers these are.
        public var app: AppID
        /// The app's container: uploads are read from it, downloads written into it.
        public var container: TransferContainer
        /// Where checkpoints persist; `nil` keeps them in memory (nothing resumes after a restart).
        public var store: (any TransferCheckpointStore)?
        /// Retries, checkpoints and bounds.
        public var policy: TransferPolicy
        /// Where the service logs.
        public var logger: Logger
        /// The device's conditions until ``EmbeddedTransfers/setDevice(_:network:)`` reports
        /// others: by default external power and Wi-Fi (a server or a desktop), so that
        /// discretionary transfers are not held back on a guess.
        public var device: DeviceConditions
        /// Where a redirect may lead (``RedirectReach``): the system's lookups; tests put in their own.
        var reach: RedirectReach = .system

        /// Creates a configuration.
        public init(
            app: AppID,
            container: TransferContainer,
            store: (any TransferCheckpointStore)? = nil,
            policy: TransferPolicy = TransferPolicy(),
            logger: Logger = Logger(label: "background-transfers"),
            device: DeviceConditions = DeviceConditions(powerSource: .externalPower, network: .wifi)
        ) {
            self.app = app
            self.container = container
            self.store = store
            self.policy = policy
            self.logger = logger
            self.device = device
        }
    }

    /// The configuration in force.
    public let configuration: Configuration
    let state: Mutex<ServiceState>
    /// Writes checkpoints to the store in batches (``CheckpointWriter``).
    let checkpoints: CheckpointWriter?
    /// The service's T+0 on the monotonic clock and the wall clock: the queue's instants.
    let origin = (monotonic: ContinuousClock.now, unixSeconds: Date().timeIntervalSince1970)

    public var app: AppID { configuration.app }

    /// Creates the service; nothing runs until a session attaches.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.state = Mutex(ServiceState(queue: TransferQueue(device: configuration.device)))
        self.checkpoints = configuration.store.map { CheckpointWriter(store: $0, logger: configuration.logger) }
    }

    /// Writes every checkpoint and removal made so far to the store, and returns once they are
    /// committed. The service writes them in batches, within milliseconds, on its own; call it
    /// before reading the store from elsewhere, or before the process exits at once.
    public func flushCheckpoints() {
        checkpoints?.flush()
    }

    /// `$XDG_DATA_HOME/background-execution/<app>/Container` (`~/.local/share/…` by default): the
    /// container embedded mode uses when the app names none.
    public static func defaultContainer(for app: AppID) -> String {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return base + "/background-execution/" + app.bundleIdentifier + "/Container"
    }

    public func attach(
        _ session: TransferSessionOptions,
        events: @escaping @Sendable (TransferEvent) -> Void
    ) -> [TransferCheckpoint] {
        guard session.app == configuration.app else { return [] }
        let stored = storedTransfers(of: session.session)
        let (known, toStart, toDeliver) = state.withLock { state in
            if var existing = state.sessions[session.session] {
                existing.events = events
                existing.options = session
                state.sessions[session.session] = existing
                return (
                    existing.transfers.values.sorted { $0.task < $1.task }, [TransferCheckpoint](),
                    [TransferCheckpoint]()
                )
            }
            var fresh = SessionState(options: session, events: events)
            for transfer in stored { fresh.transfers[transfer.task] = transfer }
            fresh.nextTask = (stored.map(\.task).max() ?? 0) + 1
            state.sessions[session.session] = fresh
            return (stored, stored.filter { $0.state != .completed }, stored.filter { $0.state == .completed })
        }
        for transfer in toStart { enqueue(transfer) }
        if !toStart.isEmpty { reschedule() }
        sweepPartialFilesIfDue()
        if !toDeliver.isEmpty {
            Task { for transfer in toDeliver { self.deliverCompletion(transfer, resumeData: nil) } }
        }
        return known
    }

    public func reserveTaskIdentifier(app: AppID, session: String) -> Int {
        state.withLock { state in
            guard var entry = state.sessions[session] else { return 0 }
            defer { state.sessions[session] = entry }
            entry.nextTask += 1
            return entry.nextTask - 1
        }
    }

    public func submit(_ order: TransferOrder) {
        var transfer = order.transfer
        guard transfer.app == configuration.app else { return }
        transfer.state = .waiting
        transfer.outcome = nil
        do {
            try prepare(&transfer, order: order)
        } catch {
            transfer.state = .completed
            transfer.outcome = TransferOutcome(errorCode: error.code, errorMessage: error.message)
            state.withLock { $0.sessions[transfer.session]?.transfers[transfer.task] = transfer }
            deliverCompletion(transfer, resumeData: nil)
            return
        }
        save(transfer)
        state.withLock { $0.sessions[transfer.session]?.transfers[transfer.task] = transfer }
        enqueue(transfer)
        reschedule()
    }

    public func cancel(app: AppID, session: String, task: Int, resumeData: (@Sendable ([UInt8]?) -> Void)?) {
        guard app == configuration.app else {
            resumeData?(nil)
            return
        }
        let key = TransferKey(app: app, session: session, task: task)
        let (run, waiting): (Task<Void, Never>?, TransferCheckpoint?) = state.withLock { state in
            guard let entry = state.sessions[session] else { return (nil, nil) }
            let waiting = entry.runs[task] == nil && state.queue.entry(key) != nil ? entry.transfers[task] : nil
            guard entry.runs[task] != nil || waiting != nil else { return (nil, nil) }
            state.sessions[session]?.cancelled.insert(task)
            if let resumeData { state.sessions[session]?.resumeWanted[task] = resumeData }
            if waiting != nil { state.queue.remove(key) }
            return (entry.runs[task], waiting)
        }
        if let run {
            run.cancel()
        } else if let waiting {
            // Not started (it waits for its conditions): it ends here, as a cancelled run would.
            complete(Self.ended(waiting, code: TransferFailure.cancelledCode, message: "cancelled"))
        } else {
            resumeData?(nil)
        }
    }

    public func delivered(app: AppID, session: String, task: Int) {
        guard app == configuration.app else { return }
        let (transfer, keepsPartial) = state.withLock { state in
            let transfer = state.sessions[session]?.transfers.removeValue(forKey: task)
            let keeps = state.sessions[session]?.keepsPartial.remove(task) != nil
            return (transfer, keeps)
        }
        guard let transfer else { return }
        checkpoints?.remove(TransferKey(app: app, session: session, task: task))
        if let partial = transfer.partialFile, !keepsPartial { configuration.container.remove(partial) }
    }

    public func detach(app: AppID, session: String, cancelling: Bool) {
        guard app == configuration.app else { return }
        let tasks: [Int] = state.withLock { state in
            guard cancelling, let entry = state.sessions[session] else { return [] }
            return entry.transfers.values.filter { $0.state != .completed }.map(\.task).sorted()
        }
        for task in tasks { cancel(app: app, session: session, task: task, resumeData: nil) }
    }

    /// Cancels every running transfer and waits for each to write its last checkpoint; for a
    /// clean stop (their events are not delivered, and they resume at the next attach).
    public func shutdown() async {
        let runs: [Task<Void, Never>] = state.withLock { state in
            state.isShutDown = true
            state.wake?.cancel()
            return state.sessions.keys.sorted().flatMap { name in
                state.sessions[name]!.runs.sorted { $0.key < $1.key }.map(\.value)
            }
        }
        for run in runs { run.cancel() }
        for run in runs { await run.value }
        checkpoints?.flush()
    }
}
