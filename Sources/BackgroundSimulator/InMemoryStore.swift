public import BackgroundCore
import Synchronization

/// A ``PersistentStore`` in memory, with the SQLite store's semantics: what the simulator's
/// system writes, and reads back after a reboot.
///
/// Each batch applies whole (the lock is held for it). Launch records keep the newest
/// `launchLimit`, as `BackgroundStore` does; apps come back sorted by identifier.
public final class InMemoryStore: PersistentStore {
    private let state = Mutex<[AppID: PersistedApp]>([:])
    /// The device's condition intervals, for every app (recorded once for the device).
    private let deviceIntervals = Mutex<[DeviceConditionInterval]>([])
    private let launchLimit: Int

    /// Creates an empty store.
    ///
    /// - Parameter launchLimit: How many foreground launches to keep per app; 500 matches
    ///   `SchedulingPolicy.usageHistoryLimit` and `BackgroundStore`.
    public init(launchLimit: Int = 500) {
        self.launchLimit = launchLimit
    }

    public func apply(_ changes: [StoreChange], clock: WallClock) {
        state.withLock { apps in
            for change in changes {
                if case .recordDeviceInterval(let interval) = change {
                    deviceIntervals.withLock { Self.record(interval, in: &$0) }
                } else {
                    Self.apply(change, to: &apps, launchLimit: launchLimit)
                }
            }
        }
    }

    public func load(clock: WallClock) -> [PersistedApp] {
        let intervals = deviceIntervals.withLock { $0 }
        return state.withLock { apps in
            apps.values.sorted { $0.app < $1.app }.map { app in
                var app = app
                app.deviceIntervals = intervals
                return app
            }
        }
    }

    /// Inserts an interval (replacing one that begins at the same instant), keeping the newest 1000
    /// as `BackgroundStore` does.
    private static func record(_ interval: DeviceConditionInterval, in intervals: inout [DeviceConditionInterval]) {
        intervals.removeAll { $0.from == interval.from }
        intervals.append(interval)
        intervals.sort { $0.from < $1.from }
        if intervals.count > 1000 { intervals.removeFirst(intervals.count - 1000) }
    }

    /// The pending requests of every app, by app: what a reboot must bring back.
    public var pendingRequests: [AppID: [TaskRequest]] {
        state.withLock { apps in apps.mapValues(\.pendingRequests).filter { !$0.value.isEmpty } }
    }

    private static func apply(_ change: StoreChange, to apps: inout [AppID: PersistedApp], launchLimit: Int) {
        switch change {
        case .savePendingRequest(let app, let request):
            apps[app, default: PersistedApp(app: app)].pendingRequests.removeAll { $0.identifier == request.identifier }
            apps[app, default: PersistedApp(app: app)].pendingRequests.append(request)
        case .deletePendingRequest(let app, let identifier):
            apps[app]?.pendingRequests.removeAll { $0.identifier == identifier }
        case .deleteAllPendingRequests(let app):
            apps[app]?.pendingRequests.removeAll()
        case .recordLaunch(let app, let instant):
            var launches = apps[app, default: PersistedApp(app: app)].launches
            launches.append(instant)
            if launches.count > launchLimit { launches.removeFirst(launches.count - launchLimit) }
            apps[app, default: PersistedApp(app: app)].launches = launches
        case .saveAppState(let app, let saved):
            apps[app, default: PersistedApp(app: app)].state = saved
        case .saveManifest(let manifest):
            apps[manifest.bundleIdentifier, default: PersistedApp(app: manifest.bundleIdentifier)].manifest = manifest
        case .recordRun(let app, let run):
            // The newest 20 per identifier, as `BackgroundStore` keeps.
            var runs = apps[app, default: PersistedApp(app: app)].runs
            runs.append(run)
            let same = runs.indices.filter { runs[$0].identifier == run.identifier }
            if same.count > 20, let oldest = same.first { runs.remove(at: oldest) }
            apps[app, default: PersistedApp(app: app)].runs = runs
        case .recordDeviceInterval:
            break  // kept for the whole device, in `deviceIntervals`
        }
    }
}
