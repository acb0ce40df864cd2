import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension UIApplicationDelegate {
    /// The entry point of an `@main` app delegate, as UIKit declares it: the program runs as the
    /// app, under `UIApplication.shared`'s system.
    ///
    /// ```swift
    /// @main
    /// class AppDelegate: UIResponder, UIApplicationDelegate {
    ///     func applicationDidEnterBackground(_ application: UIApplication) { … }
    /// }
    /// ```
    ///
    /// What it does, in order, on the main thread:
    /// 1. creates the delegate as `UIApplicationMain` does, with its `init()` (its own
    ///    `override init()`, or the inherited one, which sets its stored properties' defaults), and
    ///    makes it the delegate of `UIApplication.shared`, keeping it for the process's life. The
    ///    delegate must inherit from ``UIResponder`` or NSObject (anything else is a fault) and, as on
    ///    iOS, have an `init()`: one that declares only initializers of its own (`init(store:)`)
    ///    stops the process at launch with Swift's "Use of unimplemented initializer 'init()' for
    ///    class '…'" (add `override convenience init() { self.init(store: Store()) }`);
    /// 2. when the shared application runs on an ``EmbeddedSystem`` (by default
    ///    ``EmbeddedSystem/default``: the real clock and a 30 s graceful-shutdown budget), makes
    ///    SIGTERM and SIGINT move the app to the background
    ///    (``EmbeddedSystem/moveToBackground(onSignals:)``);
    /// 3. delivers the launch: `application(_:didFinishLaunchingWithOptions:)`, then
    ///    `applicationDidBecomeActive(_:)`, as UIKit does for a launch into the foreground;
    /// 4. runs the main run loop (`dispatchMain()`) forever: main-actor work, timers and
    ///    `DispatchQueue.main` blocks run there.
    ///
    /// The process ends as the system decides: after a signal, the app gets
    /// `applicationWillResignActive(_:)` and `applicationDidEnterBackground(_:)`; work under
    /// background tasks goes on within the budget, and the process exits with status 0 when the
    /// last one ends, or with status 70 and a termination report if one is still held when the
    /// budget runs out. A second signal ends it at once. Call ``UIApplication/bootstrap(_:)``
    /// before `main()` runs (a static initializer of the delegate's module, for example) to use
    /// another system.
    @MainActor
    public static func main() {
        ApplicationMain.run(delegateType: Self.self)
    }
}

/// What `main()` keeps for the life of the process.
@MainActor
package enum ApplicationMain {
    /// The delegate: `UIApplication` holds its delegate weakly, as UIKit does.
    static var delegate: (any UIApplicationDelegate)?

    static func run(delegateType: any UIApplicationDelegate.Type) -> Never {
        guard let delegate = makeDelegate(delegateType) else {
            BackgroundFault.raise(
                BackgroundFault(
                    api: "UIApplicationDelegate.main()",
                    message:
                        "\(delegateType) must inherit from UIResponder (or NSObject) to be created as the app delegate"
                )
            )
            exit(70)
        }
        self.delegate = delegate
        let application = UIApplication.shared
        application.delegate = delegate
        if let system = application.connection as? EmbeddedSystem {
            system.moveToBackground(onSignals: [SIGTERM, SIGINT])
        }
        deliverLaunch(application)
        dispatchMain()
    }

    /// The delegate `main()` runs with, created as `UIApplicationMain` creates it: with the
    /// class's `init()` (``NSObjectInit``), which a class that has none (only `init(store:)`)
    /// does not survive. `nil` for a type that is not a class inheriting from NSObject.
    package static func makeDelegate(_ delegateType: any UIApplicationDelegate.Type) -> (any UIApplicationDelegate)? {
        guard let objectType = delegateType as? NSObject.Type else { return nil }
        return NSObjectInit.make(objectType) as? any UIApplicationDelegate
    }

    /// The launch callbacks. The system launched the app when it was created, before the
    /// delegate existed, so they are delivered here, once.
    ///
    /// In the state the system has the app in by now: a launch into the foreground ends with
    /// `applicationDidBecomeActive(_:)` when the app is active already (the system's own word
    /// for the same changes, arriving later, calls nothing again); a launch in the background
    /// calls only `application(_:didFinishLaunchingWithOptions:)`.
    package static func deliverLaunch(_ application: UIApplication) {
        guard !application.hasFinishedLaunching else { return }
        let state = application.applicationState
        guard state != .background else { return application.deliverBackgroundWake() }
        application.deliverTransition(from: .notRunning, to: .inactive)
        if state == .active { application.deliverTransition(from: .inactive, to: .active) }
    }
}
