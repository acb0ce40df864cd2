public import BackgroundExecution
public import ServiceLifecycle
import Synchronization

/// The embedded system as a swift-service-lifecycle `Service`, for services whose
/// `ServiceGroup` already owns SIGTERM.
///
/// The group's graceful shutdown is the app moving to the background: work under background
/// tasks goes on within the policy's budget, expiration handlers run on the main actor shortly
/// before the end, and ``run()`` returns when the last background task ends. A watchdog
/// termination (a task that leaked past the budget) makes ``run()`` throw ``Terminated`` with
/// the report. If the group's own escalation cancels the service first (its
/// `maximumGracefulShutdownDuration`), the app is ended at once, as a force quit, and ``run()``
/// throws ``Terminated`` with the report naming every task still held.
///
/// The service installs no signal handling: do not call
/// ``EmbeddedSystem/moveToBackground(onSignals:)`` in this mode. It never ends the process
/// either: it sets ``EmbeddedSystem/Configuration/terminationBehavior`` to `.record`, so the
/// group decides when `main` returns.
///
/// ```swift
/// import BackgroundExecution
/// import BackgroundServiceLifecycle
/// import ServiceLifecycle
///
/// let background = BackgroundExecutionService(
///     configuration: .init(app: "com.example.exporter", policy: .server(grace: .seconds(20))))
/// let app = UIApplication.bootstrap(background.system)
/// let group = ServiceGroup(configuration: .init(
///     services: [background, exporter],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger))
/// try await group.run()
/// ```
public final class BackgroundExecutionService: Service, Sendable {
    /// The app ended with a termination report that is not clean: the watchdog ended it
    /// (`0x8badf00d`) or something ended it while background tasks were still held.
    public struct Terminated: Error, CustomStringConvertible, Sendable {
        /// The report, naming every task still held and where it began.
        public let report: TerminationReport

        /// The report's first lines.
        public var description: String { "the app was terminated: \(report.reason)" }
    }

    /// The embedded system this service runs: bootstrap `UIApplication` with it.
    public let system: EmbeddedSystem

    private let ending: Ending

    /// A service around a new embedded system.
    ///
    /// - Parameter configuration: The system's configuration. Its `terminationBehavior` is
    ///   replaced by `.record` (the group ends the process, not the system); its
    ///   `effectObserver`, if any, still sees every effect.
    public init(configuration: EmbeddedSystem.Configuration) {
        let ending = Ending()
        var configuration = configuration
        configuration.terminationBehavior = .record
        let observer = configuration.effectObserver
        configuration.effectObserver = { instant, effect in
            observer?(instant, effect)
            switch effect {
            case .exit(_, _, let report), .terminate(_, let report): ending.finish(with: report)
            default: break
            }
        }
        self.ending = ending
        self.system = EmbeddedSystem(configuration: configuration)
    }

    /// Runs until the app ends: after the group's graceful shutdown, when its last background
    /// task ends.
    ///
    /// - Throws: ``Terminated`` after a watchdog termination, or when the group cancelled the
    ///   service while tasks were still held (the report names them); `CancellationError` when
    ///   cancelled and the app could not be ended with a report.
    public func run() async throws {
        let system = self.system
        let ending = self.ending
        // Cancellation is watched by a child task, not by `withTaskCancellationHandler`: the
        // runtime may call an `onCancel` closure more than once (swiftlang/swift#80161), and a
        // second call from the group's escalation, racing this function's return, read a freed
        // context (a crash seen in full test runs under load). A child task's sleep ends when the
        // service is cancelled, and everything it touches is its own.
        let report: TerminationReport?? = await withTaskGroup(of: TerminationReport??.self) { group in
            group.addTask {
                await withGracefulShutdownHandler {
                    await ending.wait()
                } onGracefulShutdown: {
                    system.moveToBackground()
                }
            }
            group.addTask {
                // Wakes only on cancellation: the group's escalation, or this run being over.
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                guard !ending.isSettled else { return .none }
                // The group's escalation: end the app now, reporting what was still held.
                _ = try? system.send(.terminate(system.app, .userForceQuit))
                ending.cancel()
                return .none
            }
            var first: TerminationReport?? = .none
            while let next = await group.next() {
                if case .some = next {
                    first = next
                    break
                }
            }
            group.cancelAll()
            return first
        }
        guard case .some(let settled) = report, let report = settled else { throw CancellationError() }
        if !report.isClean { throw Terminated(report: report) }
    }
}

/// The app's end, once: waiters resume with its report, or nil when cancelled first.
final class Ending: Sendable {
    private struct State {
        var outcome: TerminationReport??
        var waiters: [CheckedContinuation<TerminationReport?, Never>] = []
    }

    private let state = Mutex(State())

    /// Records the app's end and resumes every waiter (the first call wins).
    func finish(with report: TerminationReport) { settle(report) }

    /// Resumes every waiter with nil, unless the app already ended.
    func cancel() { settle(nil) }

    /// Whether the app's end (or a cancellation) has been recorded.
    var isSettled: Bool { state.withLock { $0.outcome != nil } }

    /// Waits for the end: its report, or nil if cancelled first.
    func wait() async -> TerminationReport? {
        await withCheckedContinuation { continuation in
            let settled: TerminationReport?? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    private func settle(_ outcome: TerminationReport?) {
        let waiters = state.withLock { state -> [CheckedContinuation<TerminationReport?, Never>] in
            guard state.outcome == nil else { return [] }
            state.outcome = .some(outcome)
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
