import BackgroundCore
public import Foundation

extension UIApplication {
    /// Marks the start of work that should go on if the app moves to the background.
    ///
    /// Raises a "don't suspend me" assertion. While the app is in the foreground it is dormant;
    /// in the background the app's one budget (30 s under ``SystemPolicy/iOS``) ticks while any
    /// assertion is held. Shortly before the budget ends, every outstanding expiration handler is
    /// called on the main actor, one at a time in begin order; end the task in it. Any assertion
    /// still held when the budget ends gets the app killed with `0x8badf00d`, and the termination
    /// report names it and the line that began it.
    ///
    /// ```swift
    /// task = UIApplication.shared.beginBackgroundTask(withName: "UploadPendingData") {
    ///     self.cleanupBackgroundTask()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - taskName: A name for logs and reports; `nil` generates one from the calling function.
    ///   - handler: Called on the main actor shortly before time runs out, or at once if the
    ///     assertion cannot be granted.
    /// - Returns: The task's identifier, or ``UIBackgroundTaskIdentifier/invalid`` if running in
    ///   the background is not possible.
    ///
    /// This overload records the caller's `#fileID`, `#line` and `#function` for reports; the
    /// plain two-argument overload (Apple's exact signature) serves protocol conformances.
    @preconcurrency
    @discardableResult
    public nonisolated func beginBackgroundTask(
        withName taskName: String?,
        expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        function: StaticString = #function
    ) -> UIBackgroundTaskIdentifier {
        begin(taskName, handler, CallSite(fileID: fileID, line: line, function: function))
    }

    /// Marks the start of work that should go on if the app moves to the background; the task's
    /// name is generated from the calling function.
    ///
    /// See ``beginBackgroundTask(withName:expirationHandler:fileID:line:function:)``.
    @preconcurrency
    @discardableResult
    public nonisolated func beginBackgroundTask(
        expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        function: StaticString = #function
    ) -> UIBackgroundTaskIdentifier {
        begin(nil, handler, CallSite(fileID: fileID, line: line, function: function))
    }

    /// Apple's exact signature, so an app's protocol that copies it is satisfied by
    /// `extension UIApplication: ThatProtocol {}`. Calls through it cannot capture the caller's
    /// source location; direct calls use the overload that does.
    @_disfavoredOverload
    @preconcurrency
    @discardableResult
    public nonisolated func beginBackgroundTask(
        withName taskName: String?,
        expirationHandler handler: (@MainActor @Sendable () -> Void)?
    ) -> UIBackgroundTaskIdentifier {
        begin(taskName, handler, .unknown)
    }

    /// Apple's exact signature of the unnamed variant, for protocol conformances.
    @_disfavoredOverload
    @preconcurrency
    @discardableResult
    public nonisolated func beginBackgroundTask(
        expirationHandler handler: (@MainActor @Sendable () -> Void)?
    ) -> UIBackgroundTaskIdentifier {
        begin(nil, handler, .unknown)
    }

    /// Marks the end of a background task. Callable from any thread, queue or actor.
    ///
    /// In the simulator, the identifier names its app, so an end made where the app cannot be
    /// told (a thread of the app's own) still ends that app's task.
    ///
    /// Ending an unknown or already-ended identifier logs UIKit's message ("Can't end
    /// BackgroundTask: no background task exists with identifier …") and does nothing else.
    /// Ending ``UIBackgroundTaskIdentifier/invalid`` does nothing.
    ///
    /// - Parameter identifier: The value `beginBackgroundTask` returned.
    public nonisolated func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {
        guard identifier != .invalid else { return }
        if identifier.rawValue >> AssertionRoutes.tagShift != 0, !(connection is any AssertionRoutes.Tagging),
            let owner = AssertionRoutes.connection(for: identifier.rawValue)
        {
            // A simulated app's identifier reached an application that is not a simulated app's
            // (a bootstrapped one, from a thread the simulator cannot attribute): its own app ends it.
            owner.endTagged(identifier.rawValue)
            return
        }
        connection.endAssertion(AssertionID(rawValue: identifier.rawValue))
    }

    /// The app's remaining background time, in seconds.
    ///
    /// `Double.greatestFiniteMagnitude` while the app is in the foreground, as observed on iOS
    /// (R1.9). An estimate: like Apple, we advise against basing app logic on it.
    public nonisolated var backgroundTimeRemaining: TimeInterval {
        connection.backgroundTimeRemaining?.seconds ?? .greatestFiniteMagnitude
    }

    private func begin(
        _ name: String?,
        _ handler: (@MainActor @Sendable () -> Void)?,
        _ site: CallSite
    ) -> UIBackgroundTaskIdentifier {
        let taskName = name ?? Self.generatedTaskName(for: site)
        guard let id = connection.beginAssertion(named: taskName, at: site, expirationHandler: handler) else {
            return .invalid
        }
        return UIBackgroundTaskIdentifier(rawValue: id.rawValue)
    }

    /// The name UIKit generates for an unnamed task: "Called by <module>, from <function>".
    static func generatedTaskName(for site: CallSite) -> String {
        site == .unknown ? "Called by an unknown caller" : "Called by \(site.module), from \(site.function)"
    }
}
