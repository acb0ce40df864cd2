public import BackgroundExecution
public import ServiceLifecycle
import Synchronization

/// The embedded system as a swift-service-lifecycle `Service`, for services whose
/// `ServiceGroup` already owns SIGTERM.
///
/// The group's graceful shutdown is the app moving to the background: work under background
/// tasks goes on within the policy's budget, expiration handlers run on the main actor shortly
/// before the end, and ``run()`` returns when the last background task ends.
///
/// An app that does not end cleanly (the watchdog ended it, `0x8badf00d`, because a task leaked
/// past the budget; or the group's own escalation, its `maximumGracefulShutdownDuration`,
/// cancelled the service while tasks were still held, which ends the app at once as a force
/// quit) always has its report published first: printed to standard error and written to the
/// configuration's `reportsDirectory`. Then, as
/// ``EmbeddedSystem/Configuration/terminationBehavior`` says:
///
/// - `.exitProcess` (the default): the process ends at once with the embedded mode's status,
///   ``EmbeddedSystem/watchdogExitStatus`` (70, `EX_SOFTWARE`) after the watchdog, 143 after a
///   force quit. As on iOS, a watchdog termination ends the process; the group's other services
///   get no further call. (Throwing instead would reach a top-level `try await group.run()`,
///   which Swift turns into a crash: `Fatal error: Error raised at top level`, exit 132.)
/// - `.record`: ``run()`` throws ``Terminated`` with the report and the group decides (tests,
///   and programs that catch the group's error themselves).
///
/// A clean end never ends the process: ``run()`` returns and the group goes on.
///
/// **Order in the group.** A `ServiceGroup` shuts its services down one at a time, last first,
/// each after the one behind it has returned. Put this service *before* the services that take
/// new work (an HTTP server): on SIGTERM the server stops accepting first, then the app moves to
/// the background and its work finishes; in the other order the server keeps accepting requests
/// until every background task has ended. (`BackgroundServiceLifecycleTests` checks this order
/// with a real HTTP server.)
///
/// The service installs no signal handling: do not call
/// ``EmbeddedSystem/moveToBackground(onSignals:)`` in this mode.
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
///     services: [background, httpServer],  // the server stops accepting first
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

    private let endsProcess: Bool

    /// A service around a new embedded system.
    ///
    /// - Parameter configuration: The system's configuration. Its `terminationBehavior` says
    ///   what an unclean end does once its report is published: `.exitProcess` (the default)
    ///   ends the process with the embedded mode's status (70 after the watchdog), `.record`
    ///   makes ``run()`` throw ``Terminated``. A clean end never ends the process. Its
    ///   `effectObserver`, if any, still sees every effect.
    public init(configuration: EmbeddedSystem.Configuration) {
        let ending = Ending()
        var configuration = configuration
        self.endsProcess = configuration.terminationBehavior == .exitProcess
        // The system itself never ends the process: the service does, after the report is out.
        configuration.terminationBehavior = .record
        // The end is known once the report is published, not when the core decides it (an effect
        // observer sees it before it is carried out): a group that returned on that signal ended
        // the process while the report was being written, leaving the reports directory empty.
        configuration.terminationObserver = { report in ending.finish(with: report) }
        self.ending = ending
        self.system = EmbeddedSystem(configuration: configuration)
    }

    /// Runs until the app ends: after the group's graceful shutdown, when its last background
    /// task ends.
    ///
    /// - Throws: Under `.record` only: ``Terminated`` after a watchdog termination, or when the
    ///   group cancelled the service while tasks were still held (the report names them). Under
    ///   `.exitProcess` these end the process instead. `CancellationError` when cancelled and the
    ///   app could not be ended with a report.
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
        guard !report.isClean else { return }
        if endsProcess { system.exitProcess(status: EmbeddedSystem.exitStatus(for: report.reason)) }
        throw Terminated(report: report)
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
