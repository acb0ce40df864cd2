/// Waits for a condition that another thread makes true: the one place tests poll the real
/// clock. It is for work that runs on Dispatch's threads or in child processes (seed samples
/// that sleep, launch handlers on background queues), never for rules, which run on virtual time.
///
/// Between checks it sleeps with `Task.sleep`, which gives its thread back to the pool: never
/// poll with `usleep` or `Thread.sleep` in a test.
///
/// - Returns: `true` once the condition holds, `false` if `timeout` passed first.
public func waitUntil(
    timeout: Duration = .seconds(30),
    every interval: Duration = .milliseconds(1),
    _ condition: @Sendable () throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: interval)
    }
    return true
}
