import Synchronization

private let lock = Mutex<Void>(())

/// Runs `body` (which installs a transfer service with `URLSession.bootstrap(_:)` and creates the
/// sessions that capture it) while no other test does the same: the service is process-wide, and
/// the test targets run in one process.
public func withBootstrapLock<T>(_ body: () throws -> T) rethrows -> T {
    try lock.withLock { _ in try body() }
}
