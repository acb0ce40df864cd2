import BackgroundCore
import BackgroundTestSupport
import Testing

@testable import BackgroundExecution

/// Issue 24: `UIApplication.LaunchOptionsKey` had no constants, so an app delegate that reads
/// `launchOptions?[.remoteNotification]` (analytics and push SDKs do, in
/// `didFinishLaunchingWithOptions`) did not compile.
@Suite("UIApplication.LaunchOptionsKey: UIKit's keys, with UIKit's raw values")
struct LaunchOptionsKeyTests {
    /// What SDKs write in `didFinishLaunchingWithOptions`.
    final class ReadingDelegate: UIResponder, UIApplicationDelegate {
        var launchedFor: [String] = []

        func application(
            _ application: UIApplication,
            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
        ) -> Bool {
            if let payload = launchOptions?[.remoteNotification] as? [AnyHashable: Any] {
                launchedFor.append("push \(payload.count)")
            }
            if launchOptions?[.location] != nil { launchedFor.append("location") }
            if let centrals = launchOptions?[UIApplication.LaunchOptionsKey.bluetoothCentrals] as? [String] {
                launchedFor.append("centrals \(centrals.joined(separator: ","))")
            }
            return true
        }
    }

    @Test("raw values are UIKit's UIApplicationLaunchOptions…Key strings")
    func rawValues() {
        #expect(UIApplication.LaunchOptionsKey.url.rawValue == "UIApplicationLaunchOptionsURLKey")
        #expect(
            UIApplication.LaunchOptionsKey.remoteNotification.rawValue
                == "UIApplicationLaunchOptionsRemoteNotificationKey"
        )
        #expect(UIApplication.LaunchOptionsKey.location.rawValue == "UIApplicationLaunchOptionsLocationKey")
        #expect(
            UIApplication.LaunchOptionsKey.bluetoothCentrals.rawValue
                == "UIApplicationLaunchOptionsBluetoothCentralsKey"
        )
        let all: [UIApplication.LaunchOptionsKey] = [
            .url, .sourceApplication, .remoteNotification, .location, .bluetoothCentrals, .bluetoothPeripherals,
            .shortcutItem, .userActivityDictionary, .userActivityType, .cloudKitShareMetadata, .newsstandDownloads,
            .annotation, .localNotification, .eventAttribution,
        ]
        #expect(Set(all).count == all.count)
        #expect(all.allSatisfy { $0.rawValue.hasPrefix("UIApplicationLaunchOptions") && $0.rawValue.hasSuffix("Key") })
    }

    @Test("a delegate that reads the options gets what a dictionary with those keys holds")
    @MainActor
    func delegateReadsOptions() {
        let delegate = ReadingDelegate()
        let system = EmbeddedSystem(
            configuration: .test(app: "com.example.sdk", policy: .iOS, clock: ManualClock(), log: EffectLog())
        )
        let application = UIApplication(connection: system)
        let options: [UIApplication.LaunchOptionsKey: Any] = [
            .remoteNotification: ["aps": ["content-available": 1]] as [AnyHashable: Any],
            .bluetoothCentrals: ["central-1"],
        ]
        #expect(delegate.application(application, didFinishLaunchingWithOptions: options))
        #expect(delegate.launchedFor == ["push 1", "centrals central-1"])
        #expect(delegate.application(application, didFinishLaunchingWithOptions: nil))
        #expect(delegate.launchedFor == ["push 1", "centrals central-1"])
    }
}
