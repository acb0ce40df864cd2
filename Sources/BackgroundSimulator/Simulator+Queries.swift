public import BackgroundCore
public import BackgroundExecution

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

    /// The `UIApplication` of the app's running process: what `UIApplication.shared` answers in
    /// its code. `nil` while the app has no process.
    ///
    /// ```swift
    /// let task = simulator.application(of: news)!.beginBackgroundTask(withName: "From the test")
    /// ```
    public func application(of app: AppID) -> UIApplication? { processes[app]?.application }

    /// The `BGTaskScheduler` of the app's running process: what `BGTaskScheduler.shared` answers
    /// in its code. `nil` while the app has no process.
    ///
    /// ```swift
    /// try simulator.taskScheduler(of: news)?.submit(BGAppRefreshTaskRequest(identifier: "refresh"))
    /// ```
    public func taskScheduler(of app: AppID) -> BGTaskScheduler? { processes[app]?.application.taskScheduler }

    /// The app's Background App Refresh status, as `UIApplication.backgroundRefreshStatus` reads
    /// it in the app (whether or not it has a process).
    public func backgroundRefreshStatus(of app: AppID) -> UIBackgroundRefreshStatus {
        UIBackgroundRefreshStatus(core.backgroundRefreshStatus(of: app))
    }

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

/// The explanations a test can assert on: history, what-ifs and the likely range.
extension Simulator {
    /// A request identifier's recent runs and the pending request's waits so far.
    ///
    /// ```swift
    /// let history = simulator.history(of: "com.example.notes", identifier: "com.example.notes.db-cleanup")
    /// #expect(history.runs.last?.waited(for: .externalPower) == .seconds(6 * 3600))
    /// ```
    public func history(of app: AppID, identifier: String) -> RequestHistory {
        core.history(of: app, identifier: identifier, at: now)
    }

    /// The changes that would let a waiting request run, computed on copies of the system.
    public func whatIfs(of app: AppID, identifier: String) -> [WhatIf] {
        core.whatIfs(of: app, identifier: identifier, at: now)
    }

    /// The likely range of a pending request's run: the project's own estimate.
    public func likelyRange(of app: AppID, identifier: String) -> LikelyRange? {
        core.likelyRange(of: app, identifier: identifier, at: now)
    }

    /// Everything about a request identifier: eligibility, history, what-ifs, range.
    public func explanation(of app: AppID, identifier: String) -> RequestExplanation? {
        core.explanation(of: app, identifier: identifier, at: now)
    }

    /// The explanations of every identifier of the app that is pending or has run, by identifier.
    public func explanations(of app: AppID) -> [RequestExplanation] {
        core.explainedIdentifiers(of: app).compactMap { core.explanation(of: app, identifier: $0, at: now) }
    }

    /// A copy of the simulated system's core, to ask it anything else.
    public var system: BackgroundSystem { core }

    /// The device's recorded condition intervals, oldest first.
    public var deviceConditionIntervals: [DeviceConditionInterval] { core.decisionHistory.device }
}
