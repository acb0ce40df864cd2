/// Waits for a condition that another thread makes true: the one place tests poll the real
/// clock. It is for work that runs on Dispatch's threads or in child processes (seed samples
/// that sleep, launch handlers on background queues), never for rules, which run on virtual time.
///
/// - Returns: `true` once the condition holds, `false` if `timeout` passed first.
public func waitUntil(timeout: Duration = .seconds(30), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
