import BackgroundCore
import BackgroundExecution
import Foundation

/// A scenario's declarative app, played as app code: every action goes through the same
/// `UIApplication` and `BGTaskScheduler` calls an app would make.
@MainActor
final class ScenarioAppBehaviour {
    let app: Scenario.App
    unowned let simulator: Simulator

    init(app: Scenario.App, simulator: Simulator) {
        self.app = app
        self.simulator = simulator
    }

    /// The transfers of the running process: its background sessions.
    private var transfers: ScenarioTransfers?

    /// The process's launch code: the delegate, the background sessions (recreated, as apps
    /// do, when the app starts transfers), then the `onLaunch` actions.
    func launch(_ process: AppProcess) {
        process.delegate = ScenarioAppDelegate(behaviour: self, process: process)
        transfers = ScenarioTransfers.transfers(of: app).isEmpty ? nil : ScenarioTransfers(app: app)
        perform(app.onLaunch, in: process)
    }

    /// `handleEventsForBackgroundURLSession`: the handler is called once the session's events are in.
    func handleEvents(for identifier: String, completionHandler: @escaping () -> Void) {
        guard let transfers else { return completionHandler() }
        transfers.keep(completionHandler, for: identifier)
    }

    func perform(_ actions: [Scenario.Action], in process: AppProcess) {
        for action in actions { perform(action, in: process) }
    }

    private func perform(_ action: Scenario.Action, in process: AppProcess) {
        let scheduler = BGTaskScheduler.shared
        switch action {
        case .register(let identifier):
            let behaviour = app.behaviour(forTask: identifier)
            _ = scheduler.register(forTaskWithIdentifier: identifier, using: nil) { [unowned self] task in
                self.run(task, behaviour, in: process)
            }
        case .submit(let submission):
            submit(submission)
        case .cancel(let identifier):
            scheduler.cancel(taskRequestWithIdentifier: identifier)
        case .cancelAll:
            scheduler.cancelAllTaskRequests()
        case .beginBackgroundTask(let task):
            begin(task, in: process)
        case .setMinimumBackgroundFetchInterval(let interval):
            let seconds: TimeInterval
            switch interval {
            case .minimum: seconds = UIApplication.backgroundFetchIntervalMinimum
            case .never: seconds = UIApplication.backgroundFetchIntervalNever
            case .interval(let duration): seconds = duration.seconds
            }
            UIApplication.shared.setMinimumBackgroundFetchInterval(seconds)
        case .beginActivity(let activity):
            let held = UIApplication.shared.beginActivity(activity.mode)
            if let duration = activity.duration { process.after(duration) { held.end() } }
        case .download(let transfer):
            transfers?.start(transfer, upload: false, app: app.id, simulator: simulator)
        case .upload(let transfer):
            transfers?.start(transfer, upload: true, app: app.id, simulator: simulator)
        }
    }

    private func submit(_ submission: Scenario.Action.Submission) {
        let request: BGTaskRequest
        switch submission.kind {
        case .refresh:
            request = BGAppRefreshTaskRequest(identifier: submission.identifier)
        case .processing(let requiresNetwork, let requiresExternalPower):
            let processing = BGProcessingTaskRequest(identifier: submission.identifier)
            processing.requiresNetworkConnectivity = requiresNetwork
            processing.requiresExternalPower = requiresExternalPower
            request = processing
        }
        if let delay = submission.earliestBegin {
            request.earliestBeginDate = Date(timeIntervalSinceNow: delay.seconds)
        }
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch {
            simulator.record(.appCode(AppID(app.id), "submit(\"\(submission.identifier)\") threw: \(error)"))
        }
    }

    private func begin(_ task: Scenario.Action.BackgroundTask, in process: AppProcess) {
        let application = UIApplication.shared
        let assertion = AssertionHandle()
        let handler: (@MainActor @Sendable () -> Void)?
        switch task.onExpiration {
        case .end: handler = { assertion.end(application) }
        case .ignore: handler = {}
        case .noHandler: handler = nil
        }
        assertion.id = application.beginBackgroundTask(
            withName: task.name ?? "Background task",
            expirationHandler: handler
        )
        guard case .after(let work) = task.end else { return }  // leaked: never ended
        process.after(work) { assertion.end(application) }
    }

    private func run(_ task: BGTask, _ behaviour: Scenario.TaskBehaviour, in process: AppProcess) {
        let then: [Scenario.Action]
        switch behaviour.completion {
        case .complete(_, let actions): then = actions
        case .never: then = []
        }
        let done = Once()
        let finish = { [unowned self] (success: Bool) in
            guard done.first() else { return }
            task.setTaskCompleted(success: success)
            self.perform(then, in: process)
        }
        switch behaviour.onExpiration {
        case .complete: task.expirationHandler = { MainActor.assumeIsolated { finish(false) } }
        case .ignore: task.expirationHandler = {}
        case .noHandler: task.expirationHandler = nil
        }
        guard case .complete(let success, _) = behaviour.completion else { return }
        process.after(behaviour.work) { finish(success) }
    }

    func fetch(
        in process: AppProcess,
        behaviour configured: Scenario.FetchBehaviour? = nil,
        completion: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        let behaviour = configured ?? app.fetch ?? Scenario.FetchBehaviour()
        let result: UIBackgroundFetchResult
        switch behaviour.result {
        case .newData: result = .newData
        case .noData: result = .noData
        case .failed: result = .failed
        }
        let call = UncheckedSendable(completion)
        process.after(behaviour.work) { call.value(result) }
    }
}

/// True the first time it is asked, false ever after: for what the work and the expiration
/// handler race to do once (completing a task).
@MainActor
private final class Once {
    private var done = false

    nonisolated init() {}

    func first() -> Bool {
        defer { done = true }
        return !done
    }
}

/// A background task identifier, ended at most once: by the work or by the expiration handler.
@MainActor
private final class AssertionHandle {
    var id: UIBackgroundTaskIdentifier = .invalid
    private let ended = Once()

    nonisolated init() {}

    func end(_ application: UIApplication) {
        guard id != .invalid, ended.first() else { return }
        application.endBackgroundTask(id)
    }
}

/// The delegate of a scenario's app: `onEnterBackground`, `onBecomeActive` and fetch.
@MainActor
final class ScenarioAppDelegate: NSObject, UIApplicationDelegate {
    private unowned let behaviour: ScenarioAppBehaviour
    private unowned let process: AppProcess

    init(behaviour: ScenarioAppBehaviour, process: AppProcess) {
        self.behaviour = behaviour
        self.process = process
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        behaviour.perform(behaviour.app.onEnterBackground, in: process)
    }

    func applicationDidBecomeActive(_ application: UIApplication) {
        behaviour.perform(behaviour.app.onBecomeActive, in: process)
    }

    func application(
        _ application: UIApplication,
        performFetchWithCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        behaviour.fetch(in: process, completion: completionHandler)
    }

    func application(
        _ application: UIApplication,
        handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        behaviour.handleEvents(for: identifier, completionHandler: completionHandler)
    }

    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        let configured = behaviour.app.remoteNotification ?? Scenario.FetchBehaviour(work: .zero, result: .noData)
        behaviour.fetch(in: process, behaviour: configured, completion: completionHandler)
    }
}
