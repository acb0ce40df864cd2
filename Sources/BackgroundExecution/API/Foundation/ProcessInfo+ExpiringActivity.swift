public import Foundation
import Synchronization

#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
extension ProcessInfo {
    /// Runs `block` on a concurrent queue while holding a background task assertion; Apple's
    /// `performExpiringActivity(withReason:using:)` (S8), which Foundation on Linux lacks.
    ///
    /// The block is called with `expired == false` while the assertion protects it. If the
    /// assertion cannot be taken, it is called once with `expired == true` instead. If the
    /// system needs to suspend the app while the block is still running, the block is called a
    /// second time, with `expired == true`, on another thread and concurrently with the first
    /// call: it must then tell the first call to wrap up quickly. The assertion is released
    /// when the first call returns.
    ///
    /// ```swift
    /// ProcessInfo.processInfo.performExpiringActivity(withReason: "Save draft") { expired in
    ///     if expired { draft.cancel() } else { draft.save() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - reason: What the activity does, for logs and reports; must not be empty (an empty
    ///     reason is a fault, through ``BackgroundFault/hook``).
    ///   - block: The work; called on a background thread.
    ///   - fileID: The caller's file, recorded as the assertion's origin in termination reports
    ///     (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - function: The caller's function (leave the default).
    @preconcurrency
    public func performExpiringActivity(
        withReason reason: String,
        using block: @escaping @Sendable (Bool) -> Void,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        function: StaticString = #function
    ) {
        performExpiringActivity(
            withReason: reason,
            application: .shared,
            using: block,
            fileID: fileID,
            line: line,
            function: function
        )
    }

    /// Apple's exact signature, so an app's protocol that copies it is satisfied by
    /// `extension ProcessInfo: ThatProtocol {}`. Calls through it cannot capture the caller's
    /// source location; direct calls use the overload that does.
    @_disfavoredOverload
    @preconcurrency
    public func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) {
        performExpiringActivity(
            withReason: reason,
            application: .shared,
            using: block,
            fileID: "<unknown>",
            line: 0,
            function: "<unknown>"
        )
    }

    /// ``performExpiringActivity(withReason:using:fileID:line:function:)`` against a given
    /// application's system, for code that injects its `UIApplication` (and for tests on a
    /// ``ManualClock``). The caller's `#fileID`, `#line` and `#function` are the assertion's
    /// origin, as ``UIApplication/beginBackgroundTask(withName:expirationHandler:fileID:line:function:)``
    /// records them.
    @preconcurrency
    public func performExpiringActivity(
        withReason reason: String,
        application: UIApplication,
        using block: @escaping @Sendable (Bool) -> Void,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        function: StaticString = #function
    ) {
        guard !reason.isEmpty else {
            application.connection.raise(
                BackgroundFault(
                    api: "performExpiringActivity(withReason:using:)",
                    message: "reason must not be nil or an empty string",
                    app: application.connection.app
                )
            )
            return
        }
        let activity = ExpiringActivity(block)
        // The assertion is taken here, before this call returns, as Foundation does: the app
        // is protected from the call on (an `applicationDidEnterBackground(_:)` that returns
        // at once is not suspended before the block starts), and a caller on the main actor
        // takes it at a deterministic instant in the simulator.
        let id = application.beginBackgroundTask(
            withName: reason,
            expirationHandler: { activity.expire() },
            fileID: fileID,
            line: line,
            function: function
        )
        guard id != .invalid else { return }  // the system calls the handler: block(true) once
        DispatchQueue.global().async {
            block(false)
            activity.finish()
            application.endBackgroundTask(id)
        }
    }
}
#endif

/// One `performExpiringActivity` call: makes sure the block sees `expired == true` at most once,
/// and never after the protected call has returned.
final class ExpiringActivity: Sendable {
    private struct State {
        var finished = false
        var expiredDelivered = false
    }

    private let block: @Sendable (Bool) -> Void
    private let state = Mutex(State())

    init(_ block: @escaping @Sendable (Bool) -> Void) {
        self.block = block
    }

    /// Called by the expiration handler (on the main actor): runs `block(true)` on another
    /// thread so the handler returns at once, as the watchdog requires.
    func expire() {
        let deliver = state.withLock { state -> Bool in
            guard !state.finished, !state.expiredDelivered else { return false }
            state.expiredDelivered = true
            return true
        }
        guard deliver else { return }
        let block = self.block
        DispatchQueue.global().async { block(true) }
    }

    /// The protected call returned.
    func finish() {
        state.withLock { $0.finished = true }
    }
}
