import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Logging
import Testing

/// The seed samples run against `UIApplication.shared`, so this suite owns the shared instance
/// and runs serially; no other test touches `shared`.
@Suite("Seed samples run unchanged but for their import", .serialized)
@MainActor
struct SeedFixtureTests {
    /// Connects `UIApplication.shared` to a fresh system on a manual clock.
    func bootstrapShared() -> (EmbeddedSystem, ManualClock) {
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.seed",
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false,
                logger: Logger(label: "seed", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        )
        UIApplication.bootstrap(system)
        return (system, clock)
    }

    @Test("UIApplication.shared can be stored as `let app: UIApplication = .shared` and is the bootstrapped one")
    func sharedIsStorable() {
        let (system, _) = bootstrapShared()
        let app: UIApplication = .shared
        #expect(app === UIApplication.shared)
        #expect(app.connection === system)
    }

    @Test("Seed 001's UploadManager holds its assertion during the upload and ends it when done")
    func uploadManager() async {
        let (system, _) = bootstrapShared()
        let manager = UploadManager()
        manager.uploadPendingData()
        #expect(system.assertions.map(\.name) == ["UploadPendingData"])
        #expect(system.assertions.first?.origin.fileID == "SeedFixtureTests/UploadManager.swift")
        // The seed's own code sleeps 2 s on a global queue (real time) before it ends the task.
        let ended = await waitUntil { system.assertions.isEmpty }
        #expect(ended)
        #expect(system.terminationReports.isEmpty)
    }

    @Test("Seed 000's BackgroundTaskExample is ended by its expiration handler when the budget runs out")
    func backgroundTaskExample() {
        let (system, clock) = bootstrapShared()
        let example = BackgroundTaskExample()
        example.performLongRunningOperation()
        #expect(system.assertions.map(\.name) == ["MyDataUploadTask"])
        system.moveToBackground()
        clock.advance(by: .seconds(25))  // expiration: the seed's handler ends the task
        #expect(system.assertions.isEmpty)
        #expect(system.lifecycleState == .suspended)
        #expect(system.terminationReports.isEmpty)
    }

    @Test("`await UIApplication.shared.endBackgroundTask(_:)`, as iOS code writes it, ends the task")
    func awaitedEnd() async {
        let (system, _) = bootstrapShared()
        let task = UIApplication.shared.beginBackgroundTask(withName: "Awaited")
        await AwaitingEndFixture.finishUpload(task)
        #expect(system.assertions.isEmpty)
    }
}

/// A scene-based app written from Xcode's template: the manifest names its scene delegate as an
/// Xcode project's `Info.plist` does. In this suite: it owns `UIApplication.shared`.
extension SeedFixtureTests {
    @Test(
        "The scene delegate from the manifest hears the transitions; its flush, begun in sceneDidEnterBackground, holds the app until the upload ends"
    )
    func sceneDelegateFlush() {
        let clock = ManualClock()
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.template</string>
            <key>UIApplicationSceneManifest</key><dict>
                <key>UIApplicationSupportsMultipleScenes</key><false/>
                <key>UISceneConfigurations</key><dict>
                    <key>UIWindowSceneSessionRoleApplication</key><array><dict>
                        <key>UISceneConfigurationName</key><string>Default Configuration</string>
                        <key>UISceneDelegateClassName</key><string>$(PRODUCT_MODULE_NAME).TemplateSceneDelegate</string>
                    </dict></array>
                </dict>
            </dict>
            </dict></plist>
            """
        let manifest = try? AppManifest(data: Data(plist.utf8))
        #expect(manifest?.sceneManifest?.configurations.first?.name == "Default Configuration")
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.template",
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false,
                logger: Logger(label: "template", factory: { _ in SwiftLogNoOpLogHandler() }),
                manifest: manifest
            )
        )
        let application = UIApplication.bootstrap(system)
        TemplateEvents.shared.recorded = []
        let appDelegate = TemplateAppDelegate()
        application.delegate = appDelegate
        ApplicationMain.deliverLaunch(application)
        clock.runPending()
        let scene = application.connectedScenes.first
        let sceneDelegate = scene?.delegate as? TemplateSceneDelegate
        #expect(sceneDelegate?.window?.isKeyWindow == true)
        #expect(application.supportsMultipleScenes == false)

        system.moveToBackground()
        clock.runPending()
        #expect(system.assertions.map(\.name) == ["AnalyticsFlush"])
        #expect(system.assertions.first?.origin.fileID == "SeedFixtureTests/TemplateSceneDelegate.swift")
        clock.advance(by: .seconds(10))
        #expect(system.lifecycleState == .background, "the flush holds the app")
        TemplateEvents.shared.pendingUpload?()
        clock.runPending()
        #expect(system.assertions.isEmpty)
        #expect(system.lifecycleState == .suspended)
        system.moveToForeground()
        clock.runPending()
        #expect(
            TemplateEvents.shared.recorded == [
                "willConnectTo", "sceneWillEnterForeground", "sceneDidBecomeActive", "sceneWillResignActive",
                "sceneDidEnterBackground", "sceneWillEnterForeground", "sceneDidBecomeActive",
            ]
        )
        #expect(system.terminationReports.isEmpty)
        #expect(appDelegate.discarded == 0)
    }
}
