public import BackgroundCore
import Foundation

/// The system's rules applied in the app's process: ``TransferQueue`` (the core's) decides which
/// transfers run; this file carries its decisions out on the real clock.
extension EmbeddedTransfers {
    /// The device changed: discretionary transfers start when it is on external power and an
    /// unmetered network; a running transfer whose network is no longer allowed pauses at its
    /// checkpoint and goes on when it is. Feed it from `BackgroundDevice`'s probes, or from the
    /// host's own knowledge.
    ///
    /// - Parameters:
    ///   - conditions: Power, battery, Low Power Mode, the network.
    ///   - network: What the conditions do not say (an expensive hotspot, Low Data Mode);
    ///     by default only cellular is expensive.
    public func setDevice(_ conditions: DeviceConditions, network: TransferNetwork? = nil) {
        state.withLock { state in
            state.queue.setDevice(conditions, network: network ?? TransferNetwork(network: conditions.network))
        }
        reschedule()
    }

    /// The user force-quit the app: every transfer of the app is cancelled with `-999`
    /// (`NSURLErrorCancelled`) and the reason `userForceQuitApplication` (0) in
    /// `NSURLErrorBackgroundTaskCancelledReasonKey`, and new ones wait (``UnmetCondition/forceQuit``)
    /// until ``openedByUser()`` (reference §5.4). A session attached hears the completions now;
    /// otherwise they are kept and delivered when the app recreates its session.
    public func forceQuit() {
        let (runs, waiting): ([Task<Void, Never>], [TransferCheckpoint]) = state.withLock { state in
            var runs: [Task<Void, Never>] = []
            var waiting: [TransferCheckpoint] = []
            for key in state.queue.forceQuit(configuration.app) {
                guard var session = state.sessions[key.session] else { continue }
                session.cancelled.insert(key.task)
                session.cancellationReasons[key.task] = .userForceQuitApplication
                if let run = session.runs[key.task] {
                    runs.append(run)
                } else if let transfer = session.transfers[key.task], transfer.state != .completed {
                    waiting.append(transfer)
                }
                state.sessions[key.session] = session
            }
            return (runs, waiting)
        }
        for run in runs { run.cancel() }
        for transfer in waiting {
            complete(Self.ended(transfer, code: TransferFailure.cancelledCode, message: "cancelled"))
        }
    }

    /// The user opened the app: transfers may run again after a force quit, and the relaunch
    /// delay starts from zero.
    public func openedByUser() {
        state.withLock { $0.queue.opened(configuration.app) }
        reschedule()
    }

    /// Why a transfer waits (or that it may run), through the core's ``Eligibility``; `nil`
    /// for a transfer the service does not hold or that has completed.
    public func eligibility(session: String, task: Int) -> Eligibility? {
        let key = TransferKey(app: configuration.app, session: session, task: task)
        let now = now()
        return state.withLock { $0.queue.eligibility(of: key, at: now) }
    }

    /// Every transfer the service holds that has not completed, running or waiting with its
    /// reasons, for `bgctl why` against the running app.
    public func transferStatus() -> TransferStatus? {
        let now = now()
        return state.withLock { $0.queue.status(at: now, originUnixSeconds: origin.unixSeconds) }
    }

    /// The service's clock as the queue counts it.
    func now() -> Instant {
        Instant(offset: ContinuousClock.now - origin.monotonic)
    }

    /// Hands a transfer to the queue, with its requirements and its `earliestBeginDate`.
    func enqueue(_ transfer: TransferCheckpoint) {
        let key = TransferKey(app: transfer.app, session: transfer.session, task: transfer.task)
        let begin = transfer.earliestBeginUnixSeconds.map { unixSeconds in
            Instant(offset: .seconds(fromInterval: max(0, unixSeconds - origin.unixSeconds)))
        }
        let now = now()
        state.withLock { state in
            state.queue.submit(key, transfer.requirements ?? TransferRequirements(), earliestBegin: begin, at: now)
        }
    }

    /// Asks the queue what to start and what to pause, does it, and waits for its next timed
    /// condition.
    func reschedule() {
        let now = now()
        let (starting, pausing): ([TransferCheckpoint], [Task<Void, Never>]) = state.withLock { state in
            guard !state.isShutDown else { return ([], []) }
            let decision = state.queue.decide(at: now)
            var pausing: [Task<Void, Never>] = []
            for key in decision.pause {
                guard let run = state.sessions[key.session]?.runs[key.task] else { continue }
                state.sessions[key.session]?.pausing.insert(key.task)
                pausing.append(run)
            }
            var starting: [TransferCheckpoint] = []
            for key in decision.start {
                guard let session = state.sessions[key.session], let transfer = session.transfers[key.task],
                    session.runs[key.task] == nil
                else {
                    // Its paused run is still ending: it starts again when that run is done.
                    state.queue.stopped(key)
                    continue
                }
                starting.append(transfer)
            }
            state.wake?.cancel()
            state.wake = decision.wakeAt.map { at in
                Task { [weak self] in
                    try? await Task.sleep(for: at - now)
                    if !Task.isCancelled { self?.reschedule() }
                }
            }
            return (starting, pausing)
        }
        for run in pausing { run.cancel() }
        for transfer in starting { start(transfer) }
    }
}
