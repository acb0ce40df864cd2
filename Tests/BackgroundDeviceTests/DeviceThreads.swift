import Testing

/// The suites whose watchers start real threads (`bg-power`, `bg-dbus`, …): run one after the
/// other, because `WatcherTests.idle` reads this process's `bg-*` threads and must find only the
/// watchers it started (a `DesktopBusWatcherTests` watcher reconnecting meanwhile is another
/// `bg-dbus` thread).
@Suite("Device watchers with real threads", .serialized)
enum DeviceThreads {}
