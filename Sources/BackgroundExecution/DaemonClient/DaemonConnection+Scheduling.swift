public import BackgroundCore
import BackgroundProtocol
public import Dispatch
public import Foundation

extension DaemonConnection {
    /// Registers a launch handler: a round trip (the daemon holds the manifest's permitted
    /// identifiers and knows whether the launch finished).
    public func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        let registration = UncheckedSendable(RegisteredTaskHandler(queue: queue, handler: launchHandler))
        // Sent and then cut off: the daemon may have registered it, so it is taken as registered
        // (and declared to a daemon that restarted), never sent twice.
        let answer = roundTrip(
            .event(.registerTaskHandler(app, identifier: identifier)),
            assumedIfBroken: .answer(.registered(identifier: identifier), [])
        ) { [weak self] answer in
            // Recorded before the answer's effects, and before the caller goes on to finish launching.
            guard case .answer(let reply, _) = answer else { return }
            _ = self?.recordRegistration(reply, identifier: identifier, registration.value)
        }
        guard let answer else {
            logger.error("\(app): register \"\(identifier)\": backgroundd is not connected")
            return false
        }
        if case .answer(.registered?, _) = answer { return true }
        return false
    }

    /// Submits a request: a round trip (its rejection depends on the daemon's pending list and
    /// the device).
    public func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error) {
        guard let answer = roundTrip(.event(.submitTaskRequest(app, request))) else {
            throw BGTaskScheduler.Error(.unavailable, reason: "backgroundd is not connected")
        }
        if case .answer(.rejected(_, let code)?, _) = answer { throw BGTaskScheduler.Error(rejection: code) }
    }

    public func cancelTaskRequest(identifier: String) {
        sendOneWay(.cancelTaskRequest(app, identifier: identifier))
    }

    public func cancelAllTaskRequests() {
        sendOneWay(.cancelAllTaskRequests(app))
    }

    public func pendingTaskRequests() -> [TaskRequest] {
        guard case .queryAnswer(.pendingTaskRequests(let requests))? = roundTrip(.query(.pendingTaskRequests)) else {
            return []
        }
        return requests
    }

    public func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility? {
        guard
            case .queryAnswer(.eligibility(let eligibility))? = roundTrip(.query(.eligibility(identifier: identifier)))
        else { return nil }
        return eligibility
    }

    public func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation? {
        guard
            case .queryAnswer(.explanation(let explanation))? = roundTrip(
                .query(.explanation(identifier: identifier))
            )
        else { return nil }
        return explanation
    }

    public func simulateLaunch(forTaskWithIdentifier identifier: String) {
        sendOneWay(.simulateLaunch(app, identifier: identifier))
    }

    public func simulateExpiration(forTaskWithIdentifier identifier: String) {
        sendOneWay(.simulateExpiration(app, identifier: identifier))
    }

    public func completeTask(_ run: TaskRunID, success: Bool) {
        forgetTask(run)
        sendOneWay(.completeTask(app, run, success: success))
    }

    public func reportProgress(_ run: TaskRunID, fraction: Double) {
        sendOneWay(.reportTaskProgress(app, run, fraction: fraction))
    }

    public func setMinimumBackgroundFetchInterval(_ interval: Duration?) {
        sendOneWay(.setMinimumBackgroundFetchInterval(app, interval))
    }

    /// Begins a background mode's activity: a round trip (the daemon holds the manifest's
    /// `UIBackgroundModes` and decides). A held mode is declared again after a restart of the
    /// daemon.
    public func beginModeActivity(_ mode: BackgroundMode) -> Reply {
        let answer = roundTrip(.event(.beginModeActivity(app, mode))) { [weak self] answer in
            // Recorded before anything else arrives: a restart right after it declares the mode.
            guard case .answer(.modeHeld?, _) = answer else { return }
            self?.state.withLock { _ = $0.modes.insert(mode) }
        }
        guard case .answer(let reply?, _)? = answer else {
            return .modeNotHeld(mode, reason: "backgroundd is not connected")
        }
        return reply
    }

    public func endModeActivity(_ mode: BackgroundMode) {
        // Without a connection the end needs no message: the declaration leaves the mode out.
        state.withLock { _ = $0.modes.remove(mode) }
        sendOneWay(.endModeActivity(app, mode))
    }

    public var supportsBackgroundGPU: Bool { state.withLock { $0.supportsBackgroundGPU } }

    public func instant(for date: Date) -> Instant {
        SystemTime.instant(for: date, now: now)
    }

    public func date(for instant: Instant) -> Date {
        SystemTime.date(for: instant, now: now)
    }
}
