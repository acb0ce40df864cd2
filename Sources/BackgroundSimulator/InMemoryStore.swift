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
        if let last = intervals.last, last.from < interval.from {
            intervals.append(interval)  // the usual case: a newer interval, already in order
        } else {
            intervals.removeAll { $0.from == interval.from }
            intervals.append(interval)
            intervals.sort { $0.from < $1.from }
        }
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
            // In place: a copy taken out and put back would copy every kept launch.
            Self.append(instant, to: &apps[app, default: PersistedApp(app: app)].launches, limit: launchLimit)
        case .saveAppState(let app, let saved):
            apps[app, default: PersistedApp(app: app)].state = saved
        case .saveManifest(let manifest):
            apps[manifest.bundleIdentifier, default: PersistedApp(app: manifest.bundleIdentifier)].manifest = manifest
        case .recordRun(let app, let run):
            // The newest 20 per identifier, as `BackgroundStore` keeps.
            Self.append(run, to: &apps[app, default: PersistedApp(app: app)].runs)
        case .recordDeviceInterval:
            break  // kept for the whole device, in `deviceIntervals`
        }
    }

    private static func append(_ launch: Instant, to launches: inout [Instant], limit: Int) {
        launches.append(launch)
        if launches.count > limit { launches.removeFirst(launches.count - limit) }
    }

    /// Appends a run, keeping the newest 20 of its identifier.
    private static func append(_ run: RunRecord, to runs: inout [RunRecord]) {
        runs.append(run)
        guard runs.count > 20, runs.count(where: { $0.identifier == run.identifier }) > 20,
            let oldest = runs.firstIndex(where: { $0.identifier == run.identifier })
        else { return }
        runs.remove(at: oldest)
    }
}
