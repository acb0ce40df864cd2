package import BackgroundCore
import BackgroundProtocol
package import Dispatch
import Foundation
import Synchronization

/// What became of an event sent for the system's answer (``RuntimeHost/exchange(_:recording:)``).
package enum ExchangeOutcome: Sendable {
    /// The system answered. The transport handed the reply to the exchange's `recording`
    /// before it carried out the answer's effects.
    case answered(Reply?)
    /// The caller cannot wait for the answer on this thread (the simulator, off its main
    /// actor): the event goes on, and its reply reaches `recording` when it arrives. What the
    /// system last published answers for now, where it can (`provisional`).
    case deferred(provisional: Reply?)
    /// The event was sent, and the connection broke before its answer; it is not sent again
    /// (a registration: a second one is the fault Apple crashes on), so it is taken as done.
    case lost
    /// The system could not take the event, or could not be reached: why, in words.
    case failed(String)
    /// The process has ended: its calls reach nothing (an object of an ended simulated process).
    case ended
}

// MARK: Apple's calls, mapped to the system's events once

// The calls of Apple's API that become one event of the app: one way, or a round trip for the
// system's answer, or a question. Each transport only moves the event (``RuntimeHost/sendOneWay(_:)``,
// ``RuntimeHost/exchange(_:recording:)``, ``RuntimeHost/ask(_:reply:)``); what the app sees of the
// answer, and what its tables keep, is decided here for every transport.
extension RuntimeHost {
    /// Registers a launch handler: a round trip, since the system holds the permitted identifiers
    /// and knows whether the launch is over. The handler enters the tables with the system's
    /// `.registered`, before anything the answer brings runs.
    public func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        let registration = RegisteredTaskHandler(queue: queue, handler: launchHandler)
        let outcome = exchange(.registerTaskHandler(app, identifier: identifier)) { reply, tables in
            tables.recordRegistration(reply, identifier: identifier, registration)
        }
        switch outcome {
        case .answered(let reply):
            if case .registered? = reply { return true }
            return false
        case .deferred:
            return true  // recorded when the system's answer arrives; its faults are raised then
        case .lost:
            // Sent and then cut off: the system may have registered it, so it is taken as
            // registered (and declared to a system that restarted), never sent twice.
            let assumed = Reply.registered(identifier: identifier)
            return withTables { $0.recordRegistration(assumed, identifier: identifier, registration) }
        case .failed(let reason):
            log(.error, "register \"\(identifier)\": \(reason)")
            return false
        case .ended:
            return false
        }
    }

    /// Submits a request: a round trip, since its rejection depends on the system's pending list
    /// and the device.
    ///
    /// - Throws: ``BGTaskScheduler/Error`` with Apple's code for the system's rejection, or
    ///   `unavailable` when the system could not take the request (not reachable, or its store
    ///   refused it: the system is then left as it was).
    public func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error) {
        // A deferred submit's rejection reaches nobody: the transport reports it when it arrives.
        let outcome = exchange(.submitTaskRequest(app, request)) { _, _ in }
        switch outcome {
        case .answered(.rejected(_, let code)?):
            throw BGTaskScheduler.Error(rejection: code)
        case .answered, .deferred, .lost, .ended:
            return  // an ended process's submit neither succeeds nor throws
        case .failed(let reason):
            log(.error, "submit \"\(request.identifier)\" failed: \(reason)")
            throw BGTaskScheduler.Error(.unavailable, reason: reason)
        }
    }

    /// Cancels a pending request (one way).
    public func cancelTaskRequest(identifier: String) {
        sendOneWay(.cancelTaskRequest(app, identifier: identifier))
    }

    /// Cancels every pending request of the app (one way).
    public func cancelAllTaskRequests() {
        sendOneWay(.cancelAllTaskRequests(app))
    }

    /// The pending requests, oldest first, handed to `reply` when the system answers.
    public func pendingTaskRequests(reply: @escaping @Sendable ([TaskRequest]) -> Void) {
        ask(.pendingTaskRequests) { answer in
            guard case .pendingTaskRequests(let requests)? = answer else { return reply([]) }
            reply(requests)
        }
    }

    /// The pending requests, oldest first; where the system cannot answer without waiting for
    /// its main actor, a fault and none.
    public func pendingTaskRequests() -> [TaskRequest] {
        answerNow(.pendingTaskRequests, call: "pendingTaskRequests()") { answer in
            guard case .pendingTaskRequests(let requests) = answer else { return nil }
            return requests
        } ?? []
    }

    /// Why a pending request has not run; `nil` if none is pending with that identifier.
    public func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility? {
        answerNow(.eligibility(identifier: identifier), call: "eligibility(forTaskWithIdentifier:)") { answer in
            guard case .eligibility(let eligibility) = answer else { return nil }
            return eligibility
        }
    }

    /// Everything about a request identifier; `nil` if it is neither pending nor in the history.
    public func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation? {
        answerNow(.explanation(identifier: identifier), call: "explanation(forTaskWithIdentifier:)") { answer in
            guard case .explanation(let explanation) = answer else { return nil }
            return explanation
        }
    }

    /// Runs a pending request now (the debugger's hook; one way).
    public func simulateLaunch(forTaskWithIdentifier identifier: String) {
        sendOneWay(.simulateLaunch(app, identifier: identifier))
    }

    /// Expires a running task now (the debugger's hook; one way).
    public func simulateExpiration(forTaskWithIdentifier identifier: String) {
        sendOneWay(.simulateExpiration(app, identifier: identifier))
    }

    /// Reports a task complete: the task leaves the tables at once (its expiration handler can
    /// no longer run), then the completion goes one way.
    public func completeTask(_ run: TaskRunID, success: Bool) {
        forgetTask(run)
        sendOneWay(.completeTask(app, run, success: success))
    }

    /// Reports a continued-processing task's progress (one way).
    public func reportProgress(_ run: TaskRunID, fraction: Double) {
        sendOneWay(.reportTaskProgress(app, run, fraction: fraction))
    }

    /// Sets the legacy fetch interval (one way); `nil` is never.
    public func setMinimumBackgroundFetchInterval(_ interval: Duration?) {
        sendOneWay(.setMinimumBackgroundFetchInterval(app, interval))
    }

    /// Begins a background mode's activity: a round trip, since the system holds the manifest's
    /// `UIBackgroundModes` and decides. A held mode enters the tables (declared again to a
    /// system that restarted).
    public func beginModeActivity(_ mode: BackgroundMode) -> Reply {
        let outcome = exchange(.beginModeActivity(app, mode)) { reply, tables in
            if case .modeHeld? = reply { tables.heldModes.insert(mode) }
        }
        switch outcome {
        case .answered(let reply?):
            return reply
        case .answered(nil):
            return .modeNotHeld(mode, reason: "the system did not answer")
        case .deferred(let provisional):
            return provisional ?? .modeNotHeld(mode, reason: "the system has not answered yet")
        case .lost:
            return .modeNotHeld(mode, reason: "the connection to the system broke before its answer")
        case .failed(let reason):
            return .modeNotHeld(mode, reason: reason)
        case .ended:
            return .modeNotHeld(mode, reason: "the process has ended")
        }
    }

    /// Ends a background mode's activity: it leaves the tables, and the end goes one way.
    public func endModeActivity(_ mode: BackgroundMode) {
        withTables { _ = $0.heldModes.remove(mode) }
        sendOneWay(.endModeActivity(app, mode))
    }

    /// The app's remaining background time, `nil` in the foreground (``RuntimeHost/status``).
    public var backgroundTimeRemaining: Duration? { status.backgroundTimeRemaining }

    /// The app's lifecycle state as the system sees it (``RuntimeHost/status``).
    public var lifecycleState: AppLifecycleState { status.lifecycleState }

    /// The app's Background App Refresh status (``RuntimeHost/status``).
    public var backgroundRefreshStatus: BackgroundRefreshStatus { status.refreshStatus }

    /// Whether Low Power Mode is on (``RuntimeHost/status``).
    public var isLowPowerModeEnabled: Bool { status.lowPowerMode }

    /// Whether the device supports background GPU use (``RuntimeHost/status``).
    public var supportsBackgroundGPU: Bool { status.supportsBackgroundGPU }

    /// The instant on the system's timeline of a wall-clock date: its distance from now, to the
    /// second (``SystemTime``), so dates computed from `Date()` mean the same distance ahead on
    /// a virtual clock as on the real one.
    public func instant(for date: Date) -> Instant {
        SystemTime.instant(for: date, now: now)
    }

    /// The wall-clock date of an instant on the system's timeline, measured from now.
    public func date(for instant: Instant) -> Date {
        SystemTime.date(for: instant, now: now)
    }

    /// Asks a question the caller waits for. A system that cannot answer on this thread without
    /// waiting for its main actor (the simulator, off it) answers later, to nobody: the call is
    /// then a fault, as it would block, and answers `nil`.
    private func answerNow<Result: Sendable>(
        _ query: AppQuery,
        call: String,
        _ extract: @escaping @Sendable (AppQueryAnswer) -> Result?
    ) -> Result? {
        let answered = Mutex<Result??>(nil)
        ask(query) { answer in
            let result = answer.flatMap(extract)
            answered.withLock { $0 = .some(result) }
        }
        guard let result = answered.withLock({ $0 }) else {
            raise(
                BackgroundFault(
                    api: call,
                    message:
                        "called off the main actor, where this system would have to wait for the main actor to answer; "
                        + "call it from the app's main-actor code",
                    app: app
                )
            )
            return nil
        }
        return result
    }
}
