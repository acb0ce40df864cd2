public import BackgroundCore

/// What a test reads: the apps' states, requests, assertions and runs, and the device.
extension Simulator {
    /// The installed apps, in the order they were installed.
    public var installedApps: [AppID] { installed.map(\.id) }

    /// The app's lifecycle state.
    public func state(of app: AppID) -> AppLifecycleState { core.state(of: app) }

    /// The app's pending task requests, oldest first.
    public func pendingRequests(of app: AppID) -> [TaskRequest] { core.pendingRequests(of: app) }

    /// Why a pending request has not run, and when it could.
    public func eligibility(of app: AppID, identifier: String) -> Eligibility? {
        core.eligibility(of: app, identifier: identifier, at: now)
    }

    /// The app's outstanding background task assertions.
    public func assertions(of app: AppID) -> [Assertion] { core.assertions(of: app) }

    /// The app's remaining background time, `nil` in the foreground.
    public func backgroundTimeRemaining(of app: AppID) -> Duration? {
        core.backgroundTimeRemaining(of: app, at: now)
    }

    /// The app's running process, if it has one.
    public func process(of app: AppID) -> AppProcess? { processes[app] }

    /// Every task run handed to apps so far, in the order they started.
    public var taskRuns: [TaskRunRecord] { runRecords }

    /// The task runs of one app.
    public func taskRuns(of app: AppID) -> [TaskRunRecord] { taskRuns.filter { $0.app == app } }

    /// The device now.
    public var deviceNow: DeviceState {
        var state = deviceState
        state.batteryLevel = battery.level(at: now)
        return state
    }
}
