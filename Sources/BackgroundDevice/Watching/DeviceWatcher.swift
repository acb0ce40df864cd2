/// What a watcher tells its handler.
public enum WatchEvent: Sendable, Hashable {
    /// Something the watcher covers may have changed: re-read the probe (or the watcher's own
    /// state for ``InputActivityWatcher``). Several kernel events that arrive together are one
    /// call.
    case changed
    /// The watcher's thread met an error it cannot recover from and has ended; the reading keeps
    /// its last value and the daemon says so.
    case failed(DeviceError)
}

/// A source of change notifications, each running one blocking thread from ``start(_:)`` to
/// ``stop()``. The handler is called on that thread; it must not call ``stop()`` itself.
public protocol DeviceWatcher: AnyObject, Sendable {
    /// Starts watching; throws when the kernel refuses what the watcher needs.
    func start(_ handler: @escaping @Sendable (WatchEvent) -> Void) throws(DeviceError)
    /// Stops watching and waits for the thread to end; no handler call follows. Idempotent.
    func stop()
}
