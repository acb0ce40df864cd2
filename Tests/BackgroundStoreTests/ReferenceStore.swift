import BackgroundCore

/// What the core restores after a sequence of changes: the store's semantics, kept as plain
/// values, for comparison with what `BackgroundStore` loads.
struct ReferenceStore {
    let launchLimit: Int
    private var apps: [AppID: PersistedApp] = [:]
    private var deviceIntervals: [DeviceConditionInterval] = []

    init(launchLimit: Int = 500) {
        self.launchLimit = launchLimit
    }

    /// Applies changes in order, as `BackgroundStore.apply` must.
    mutating func apply(_ changes: [StoreChange]) {
        for change in changes {
            switch change {
            case .savePendingRequest(let app, let request):
                var record = apps[app] ?? PersistedApp(app: app)
                record.pendingRequests.removeAll { $0.identifier == request.identifier }
                // Sorted by submission time; among equal times, the latest save goes last.
                let index = record.pendingRequests.lastIndex { $0.submittedAt <= request.submittedAt }
                record.pendingRequests.insert(request, at: index.map { $0 + 1 } ?? 0)
                apps[app] = record
            case .deletePendingRequest(let app, let identifier):
                apps[app]?.pendingRequests.removeAll { $0.identifier == identifier }
            case .deleteAllPendingRequests(let app):
                apps[app]?.pendingRequests.removeAll()
            case .recordLaunch(let app, let instant):
                var record = apps[app] ?? PersistedApp(app: app)
                record.launches = Array(
                    UsageHistory(launches: record.launches + [instant]).launches.suffix(launchLimit)
                )
                apps[app] = record
            case .saveAppState(let app, let state):
                var record = apps[app] ?? PersistedApp(app: app)
                record.state = state
                apps[app] = record
            case .saveManifest(let manifest):
                var record = apps[manifest.bundleIdentifier] ?? PersistedApp(app: manifest.bundleIdentifier)
                record.manifest = manifest
                apps[manifest.bundleIdentifier] = record
            case .recordRun(let app, let run):
                var record = apps[app] ?? PersistedApp(app: app)
                let same = record.runs.filter { $0.identifier == run.identifier } + [run]
                record.runs = record.runs.filter { $0.identifier != run.identifier } + same.suffix(20)
                apps[app] = record
            case .recordDeviceInterval(let interval):
                deviceIntervals.removeAll { $0.from == interval.from }
                deviceIntervals = Array((deviceIntervals + [interval]).sorted { $0.from < $1.from }.suffix(1000))
            }
        }
    }

    /// Every app, sorted by bundle identifier.
    var restored: [PersistedApp] {
        apps.values.sorted { $0.app < $1.app }.map { app in
            var app = app
            // As the store reads them back: by identifier, then start.
            app.runs = app.runs.enumerated().sorted {
                ($0.element.identifier, $0.element.startedAt, $0.offset) < (
                    $1.element.identifier, $1.element.startedAt, $1.offset
                )
            }.map(\.element)
            app.deviceIntervals = deviceIntervals
            return app
        }
    }
}
