public import BackgroundCore

extension Simulator {
    /// Runs a pending request now, whatever its conditions: the debugger's
    /// `_simulateLaunchForTaskWithIdentifier:`, and what WorkManager's `TestDriver` calls
    /// `setAllConstraintsMet`. A suspended or not-running app is resumed or launched in the
    /// background for it, as for a real run.
    public func simulateLaunch(of app: AppID, taskWithIdentifier identifier: String) {
        note("debugger: simulate launch of \"\(identifier)\" (\(app))")
        send(.simulateLaunch(app, identifier: identifier))
    }

    /// Expires a running task now: the debugger's `_simulateExpirationForTaskWithIdentifier:`.
    public func simulateExpiration(of app: AppID, taskWithIdentifier identifier: String) {
        note("debugger: simulate expiration of \"\(identifier)\" (\(app))")
        send(.simulateExpiration(app, identifier: identifier))
    }
}
