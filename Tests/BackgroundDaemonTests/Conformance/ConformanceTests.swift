import BackgroundCore
import BackgroundTestSupport
import Foundation
import Synchronization
import Testing

@testable import BackgroundExecution

/// One app side on every transport (issue 22, Deliver 3): each case is written once, runs on the
/// embedded system, the simulator and the daemon (its engine in this process, the real
/// `DaemonConnection` over a socket pair), and compares what the app saw, as a sequence of calls,
/// with one expected sequence. A case that cannot hold on a transport says why here.
///
/// The lifecycle and watchdog cases also run with a real `backgroundd` and a real app process
/// (`RealProcessConformanceTests`). Not covered yet (the issue's list): background downloads'
/// events and completion handler. `performExpiringActivity` runs
/// through `performExpiringActivity(withReason:application:using:)`, the form that names the
/// app's `UIApplication` (the one-argument form reaches `UIApplication.shared`, one per process).
@MainActor
@Suite("Conformance: the same Apple behaviour on every transport")
struct ConformanceTests {
    @Test(
        "Launch, Home, open: UIKit's callbacks in UIKit's order, each once",
        arguments: ConformanceTransport.allCases
    )
    func lifecycleOrder(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        let delegate = ConformanceDelegate()
        await driver.launch(delegate) { _ in }
        await driver.home()
        await driver.advance(by: .seconds(1))
        #expect(driver.systemState == .suspended, "nothing held: suspended once didEnterBackground returned")
        await driver.open()
        await driver.settle()
        #expect(delegate.log.calls == ConformanceExpected.lifecycle)
        #expect(driver.systemState == .active)
    }

    @Test(
        "A task begun in didEnterBackground: its expiration handler runs once, on the main actor, when the budget is spent; ended there, the app is suspended",
        arguments: ConformanceTransport.allCases
    )
    func expirationOnTheMainActor(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        let delegate = ConformanceDelegate()
        let log = delegate.log
        delegate.onEnterBackground = { application in
            let task = Mutex(UIBackgroundTaskIdentifier.invalid)
            let begun = application.beginBackgroundTask(withName: "Upload") {
                log.record("expired Upload" + (MainActorThread.isCurrent ? " on the main actor" : " off it"))
                application.endBackgroundTask(task.withLock { $0 })
            }
            task.withLock { $0 = begun }
            log.record(begun == .invalid ? "Upload denied" : "Upload began")
        }
        await driver.launch(delegate) { _ in }
        await driver.home()
        await driver.advance(by: .seconds(20))
        #expect(driver.systemState == .background, "within the budget the app runs")
        await driver.advance(by: .seconds(40))
        #expect(
            delegate.log.calls == [
                "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground", "Upload began",
                "expired Upload on the main actor",
            ]
        )
        #expect(driver.systemState == .suspended)
        #expect(driver.reports.isEmpty)
    }

    @Test(
        "A task begun in the foreground and never ended: after Home its handler runs when the budget is spent, then the watchdog ends the app with 0x8badf00d naming it",
        arguments: ConformanceTransport.allCases
    )
    func watchdogNamesTheLeak(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        let delegate = ConformanceDelegate()
        let log = delegate.log
        await driver.launch(delegate) { _ in }
        let task = driver.application.beginBackgroundTask(withName: "Leak") { log.record("expired Leak") }
        log.record(task == .invalid ? "Leak denied" : "Leak began")
        await driver.home()
        await driver.advance(by: .seconds(120))
        #expect(delegate.log.calls == ConformanceExpected.watchdog)
        #expect(driver.reports.map(\.code) == [.watchdogTimeout])
        #expect(driver.reports.first?.leakedAssertions.map(\.name) == ["Leak"])
        #expect(!driver.systemState.hasProcess)
    }

    @Test(
        "A refresh task: registered at launch, submitted, launched by the debugger's hook, completed; nothing left pending",
        arguments: ConformanceTransport.allCases
    )
    func refreshTaskRuns(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        let delegate = ConformanceDelegate()
        let log = delegate.log
        await driver.launch(delegate) { application in
            let registered = application.taskScheduler.register(
                forTaskWithIdentifier: ConformanceApp.refresh,
                using: nil
            ) { task in
                log.record("launched \(task.identifier)")
                task.setTaskCompleted(success: true)
            }
            log.record(registered ? "registered" : "not registered")
        }
        let scheduler = driver.application.taskScheduler
        // An hour ahead: pending on every device (a server's would run it at once), until the hook.
        let request = BGAppRefreshTaskRequest(identifier: ConformanceApp.refresh)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
        try scheduler.submit(request)
        await driver.settle()
        #expect(await scheduler.pendingTaskRequests().map(\.identifier) == [ConformanceApp.refresh])
        scheduler._simulateLaunchForTaskWithIdentifier(ConformanceApp.refresh)
        await driver.settle()
        // A launch handler registered with no queue runs on a background queue (Apple's rule;
        // the simulator runs it on its main actor, for determinism): waited for as an event.
        let launched = "launched \(ConformanceApp.refresh)"
        #expect(await waitUntil(timeout: .seconds(60)) { log.calls.contains(launched) })
        await driver.advance(by: .seconds(1))
        #expect(
            delegate.log.calls == [
                "registered", "didFinishLaunching", "didBecomeActive", "launched \(ConformanceApp.refresh)",
            ]
        )
        #expect(await scheduler.pendingTaskRequests().isEmpty)
    }

    @Test(
        "Submitting an identifier the manifest does not permit throws notPermitted, and nothing is pending",
        arguments: ConformanceTransport.allCases
    )
    func unpermittedSubmit(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        await driver.launch(ConformanceDelegate()) { _ in }
        let scheduler = driver.application.taskScheduler
        #expect {
            try scheduler.submit(BGAppRefreshTaskRequest(identifier: "com.example.unlisted"))
        } throws: { error in
            (error as? BGTaskScheduler.Error)?.code == .notPermitted
        }
        #expect(await scheduler.pendingTaskRequests().isEmpty)
    }

    @Test(
        "Background modes: a declared audio activity keeps the app running past the budget; an undeclared one is refused with the core's reason; ended, the app is suspended",
        arguments: ConformanceTransport.allCases
    )
    func modes(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        let delegate = ConformanceDelegate()
        let log = delegate.log
        await driver.launch(delegate) { _ in }
        let audio = driver.application.beginActivity(.audio)
        log.record("audio " + (audio.keepsAppRunning ? "held" : "refused: \(audio.refusal ?? "")"))
        let location = driver.application.beginActivity(.location)
        log.record("location " + (location.keepsAppRunning ? "held" : "refused: \(location.refusal ?? "")"))
        await driver.home()
        await driver.advance(by: .seconds(120))
        #expect(driver.systemState == .background, "the mode keeps it running past the 30 s budget")
        audio.end()
        await driver.settle()
        await driver.advance(by: .seconds(1))
        #expect(driver.systemState == .suspended)
        #expect(
            delegate.log.calls == [
                "didFinishLaunching", "didBecomeActive", "audio held",
                "location refused: UIBackgroundModes does not declare 'location': background location updates are refused",
                "willResignActive", "didEnterBackground",
            ]
        )
        #expect(driver.reports.isEmpty)
    }

    @Test(
        "A silent push to a suspended app with remote-notification: it is resumed, its delegate called once on the main actor, and suspended again when the completion handler is called",
        arguments: ConformanceTransport.allCases
    )
    func silentPush(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        let delegate = ConformanceDelegate()
        await driver.launch(delegate) { _ in }
        await driver.home()
        await driver.advance(by: .seconds(1))
        #expect(driver.systemState == .suspended)
        await driver.push(ConformanceApp.silentPush)
        await driver.advance(by: .seconds(1))
        #expect(
            delegate.log.calls == [
                "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground",
                "didReceiveRemoteNotification on the main actor",
            ]
        )
        #expect(driver.systemState == .suspended, "the completion handler was called: suspended again")
        #expect(driver.reports.isEmpty)
    }

    @Test(
        "performExpiringActivity in didEnterBackground: the block runs once with false off the main actor; when it returns, the app is suspended",
        arguments: ConformanceTransport.allCases
    )
    func expiringActivity(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver()
        let delegate = ConformanceDelegate()
        let log = delegate.log
        delegate.onEnterBackground = { application in
            ProcessInfo.processInfo.performExpiringActivity(withReason: "Save", application: application) { expired in
                log.record("activity expired=\(expired)" + (MainActorThread.isCurrent ? " on the main actor" : ""))
            }
        }
        await driver.launch(delegate) { _ in }
        await driver.home()
        // The block runs on a background queue, and its end reaches the system from there: waited
        // for as events, with virtual time standing still.
        #expect(await waitUntil(timeout: .seconds(60)) { log.calls.contains("activity expired=false") })
        #expect(await driver.waitForState(.suspended), "\(driver.systemState)")
        #expect(
            delegate.log.calls == [
                "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground",
                "activity expired=false",
            ]
        )
        #expect(driver.reports.isEmpty)
    }
    @Test(
        "A scene-based app: the scene delegate from the manifest, then UIScene's notification, then UIApplication's; no app-delegate transition calls; a flush begun on didEnterBackground keeps the app running until it ends",
        arguments: ConformanceTransport.allCases
    )
    func sceneLifecycleOrder(_ transport: ConformanceTransport) async throws {
        let driver = try transport.driver(scenes: true)
        let delegate = ConformanceDelegate()
        var monitor: LifecycleMonitor?
        await driver.launch(delegate) { application in
            monitor = LifecycleMonitor(log: delegate.log, application: application)
        }
        let scenes = driver.application.connectedScenes
        #expect(scenes.count == 1)
        #expect(scenes.first is UIWindowScene)
        #expect(scenes.first?.activationState == .foregroundActive)
        #expect(scenes.first?.delegate is ConformanceSceneDelegate)
        #expect((scenes.first?.delegate as? ConformanceSceneDelegate)?.window?.windowScene === scenes.first)
        #expect(driver.application.openSessions.first?.configuration.delegateClass == ConformanceSceneDelegate.self)
        await driver.home()
        await driver.advance(by: .seconds(10))
        #expect(driver.systemState == .background, "the flush holds a background task")
        #expect(scenes.first?.activationState == .background)
        monitor?.endFlush()
        await driver.settle()
        await driver.advance(by: .seconds(1))
        #expect(driver.systemState == .suspended, "the flush ended: suspended")
        await driver.open()
        await driver.settle()
        #expect(delegate.log.calls == ConformanceExpected.sceneLifecycle)
        #expect(driver.systemState == .active)
        #expect(driver.reports.isEmpty)
        _ = monitor
    }
}

/// The sequences cases expect, shared with the real-process cases (`RealProcessConformanceTests`).
enum ConformanceExpected {
    static let lifecycle = [
        "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground", "willEnterForeground",
        "didBecomeActive",
    ]
    /// A scene-based app's launch, Home and open, as iOS delivers them: the scene's callback, the
    /// scene's notification, then the application's.
    static let sceneLifecycle = [
        "didFinishLaunching", "note UIApplicationDidFinishLaunchingNotification", "configurationForConnecting",
        "scene(_:willConnectTo:options:) unattached", "note UISceneWillConnectNotification",
        "sceneWillEnterForeground foregroundInactive", "note UISceneWillEnterForegroundNotification",
        "note UIApplicationWillEnterForegroundNotification", "sceneDidBecomeActive foregroundActive",
        "note UISceneDidActivateNotification", "note UIApplicationDidBecomeActiveNotification",
        "sceneWillResignActive foregroundInactive", "note UISceneWillDeactivateNotification",
        "note UIApplicationWillResignActiveNotification", "sceneDidEnterBackground background",
        "note UISceneDidEnterBackgroundNotification", "Flush began", "note UIApplicationDidEnterBackgroundNotification",
        "Flush ended", "sceneWillEnterForeground foregroundInactive", "note UISceneWillEnterForegroundNotification",
        "note UIApplicationWillEnterForegroundNotification", "sceneDidBecomeActive foregroundActive",
        "note UISceneDidActivateNotification", "note UIApplicationDidBecomeActiveNotification",
    ]
    static let watchdog = [
        "didFinishLaunching", "didBecomeActive", "Leak began", "willResignActive", "didEnterBackground",
        "expired Leak",
    ]
}

extension ConformanceDriver {
    /// Waits, on the real clock for at most a minute, until the system sees the app in `state`,
    /// letting each side take in what arrived (virtual time does not move): for work that
    /// reaches the system from a background queue.
    func waitForState(_ state: AppLifecycleState) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while systemState != state {
            guard ContinuousClock.now < deadline else { return false }
            await advance(by: .zero)
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}
