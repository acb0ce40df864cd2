import BackgroundCore
import Testing

// Helpers for the BGTaskScheduler tests: manifests, requests, device conditions and a few
// multi-event steps on top of `Driver`. Virtual time only.

/// More apps, for the tests that need five at once.
let news: AppID = "com.example.news"
let photos: AppID = "com.example.photos"

extension AppID {
    /// The app's refresh identifier (listed in its manifest).
    var refreshID: String { "\(bundleIdentifier).refresh" }
    /// A second refresh identifier, to reach the limit of one pending refresh.
    var otherRefreshID: String { "\(bundleIdentifier).refresh-secondary" }
    /// The app's processing identifiers `cleanup0` … `cleanup11` (twelve, to pass the limit of ten).
    func processingID(_ number: Int = 0) -> String { "\(bundleIdentifier).cleanup\(number)" }
    /// A continued-processing identifier, matched by the manifest's wildcard `<app>.export.*`.
    func continuedID(_ suffix: String) -> String { "\(bundleIdentifier).export.\(suffix)" }
    /// The wildcard entry for continued processing.
    var continuedWildcard: String { "\(bundleIdentifier).export.*" }
    /// Every identifier listed by name in the app's manifest (the wildcard left out).
    var listedTaskIDs: [String] { [refreshID, otherRefreshID] + (0..<12).map { processingID($0) } }
}

extension AppManifest {
    /// A manifest listing the app's refresh and processing identifiers and its continued-processing
    /// wildcard, with the given background modes.
    static func scheduling(_ app: AppID, modes: Set<BackgroundMode> = [.fetch, .processing]) -> AppManifest {
        AppManifest(
            bundleIdentifier: app,
            permittedTaskIdentifiers: app.listedTaskIDs + [app.continuedWildcard],
            backgroundModes: modes
        )
    }
}

extension TaskRequest {
    /// A `BGAppRefreshTaskRequest`.
    static func refresh(_ identifier: String, notBefore: Instant? = nil) -> TaskRequest {
        TaskRequest(identifier: identifier, kind: .appRefresh, earliestBegin: notBefore)
    }

    /// A `BGProcessingTaskRequest`.
    static func processing(
        _ identifier: String,
        notBefore: Instant? = nil,
        power: Bool = false,
        network: Bool = false
    ) -> TaskRequest {
        TaskRequest(
            identifier: identifier,
            kind: .processing,
            earliestBegin: notBefore,
            requiresNetworkConnectivity: network,
            requiresExternalPower: power
        )
    }

    /// A `BGContinuedProcessingTaskRequest`.
    static func continued(
        _ identifier: String,
        strategy: SubmissionStrategy = .queue,
        gpu: Bool = false,
        notBefore: Instant? = nil
    ) -> TaskRequest {
        TaskRequest(
            identifier: identifier,
            kind: .continuedProcessing,
            earliestBegin: notBefore,
            title: "Exporting",
            subtitle: "3 of 10",
            strategy: strategy,
            requiresGPU: gpu
        )
    }
}

extension DeviceConditions {
    /// The user is away, on battery (80 %) and Wi-Fi.
    static let idleOnBattery = DeviceConditions(isIdle: true)
    /// The user is away and the device is charging, on Wi-Fi.
    static let idleCharging = DeviceConditions(powerSource: .externalPower, isIdle: true)
}

extension Driver {
    /// Installs the app's scheduling manifest.
    mutating func install(
        _ app: AppID,
        modes: Set<BackgroundMode> = [.fetch, .processing],
        at instant: Instant = .zero
    ) throws(BackgroundSystemError) {
        try send(.install(.scheduling(app, modes: modes)), at: instant)
    }

    /// Registers a launch handler for each identifier; returns the effects of all of them.
    @discardableResult
    mutating func register(
        _ app: AppID,
        _ identifiers: [String],
        at instant: Instant
    ) throws(BackgroundSystemError)
        -> [Effect]
    {
        var effects: [Effect] = []
        for identifier in identifiers {
            effects += try send(.registerTaskHandler(app, identifier: identifier), at: instant)
        }
        return effects
    }

    /// The user opens the app: launch in the foreground, register every listed handler, finish
    /// launching, activate. Returns the effects of all four steps.
    @discardableResult
    mutating func openRegistered(_ app: AppID, at instant: Instant) throws(BackgroundSystemError) -> [Effect] {
        var effects = try send(.launch(app, .foreground), at: instant)
        effects += try register(app, app.listedTaskIDs, at: instant)
        effects += try send(.finishLaunching(app), at: instant)
        effects += try send(.activate(app), at: instant)
        return effects
    }

    /// An app installed and opened (handlers registered, launch finished) at `instant`, in the foreground.
    static func opened(_ apps: [AppID] = [notes], at instant: Instant = .zero) throws(BackgroundSystemError) -> Driver {
        var d = Driver()
        for app in apps {
            try d.install(app, at: instant)
            try d.openRegistered(app, at: instant)
        }
        return d
    }

    /// A system that has just restored the app's pending requests from the store: the app is
    /// not running and was last opened at T+0.
    static func restored(_ requests: [TaskRequest], of app: AppID = notes) throws(BackgroundSystemError) -> Driver {
        var d = Driver()
        let saved = PersistedApp(app: app, manifest: .scheduling(app), pendingRequests: requests, launches: [.zero])
        try d.send(.restore(saved), at: .zero)
        return d
    }

    /// Submits a request.
    @discardableResult
    mutating func submit(
        _ app: AppID,
        _ request: TaskRequest,
        at instant: Instant
    ) throws(BackgroundSystemError)
        -> Answer
    {
        let effects = try send(.submitTaskRequest(app, request), at: instant)
        return Answer(reply: lastReply, effects: effects)
    }

    /// Reports the device's conditions.
    @discardableResult
    mutating func device(
        _ conditions: DeviceConditions,
        at instant: Instant
    ) throws(BackgroundSystemError)
        -> [Effect]
    {
        try send(.setDevice(conditions), at: instant)
    }

    /// The app calls `setTaskCompleted(success:)`.
    @discardableResult
    mutating func complete(
        _ app: AppID,
        _ run: TaskRunID,
        success: Bool = true,
        at instant: Instant
    ) throws(BackgroundSystemError) -> [Effect] {
        try send(.completeTask(app, run, success: success), at: instant)
    }

    /// The pending identifiers of an app, in submission order.
    func pendingIDs(_ app: AppID) -> [String] { system.pendingRequests(of: app).map(\.identifier) }

    /// Why the app's request has not run, asked at `instant`.
    func why(_ app: AppID, _ identifier: String, at instant: Instant) -> Eligibility? {
        system.eligibility(of: app, identifier: identifier, at: instant)
    }
}

extension Array where Element == Effect {
    /// Every run handed over by `.runTasks` effects, in order.
    var taskRuns: [TaskRun] {
        flatMap { effect -> [TaskRun] in
            if case .runTasks(_, let runs) = effect { return runs }
            return []
        }
    }

    /// The `.runTasks` batches, as (app, identifiers).
    var taskBatches: [(app: AppID, identifiers: [String])] {
        compactMap { effect in
            if case .runTasks(let app, let runs) = effect { return (app, runs.map(\.request.identifier)) }
            return nil
        }
    }

    /// The messages of `.fault` effects.
    var faults: [String] {
        compactMap { effect in
            if case .fault(_, let message) = effect { return message }
            return nil
        }
    }

    /// The runs whose expiration was delivered.
    var expiredRuns: [TaskRunID] {
        compactMap { effect in
            if case .expireTask(_, let run) = effect { return run }
            return nil
        }
    }

    /// The effects without log records and wake-up requests: what the app and the shell see.
    var withoutBookkeeping: [Effect] {
        filter {
            switch $0 {
            case .log, .scheduleWakeup, .cancelWakeup: return false
            default: return true
            }
        }
    }
}
