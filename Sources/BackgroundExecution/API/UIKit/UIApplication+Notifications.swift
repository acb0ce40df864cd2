import BackgroundCore
public import Foundation

extension UIApplication {
    /// Posted when the app moves to the background.
    public static let didEnterBackgroundNotification = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    /// Posted shortly before the app comes back to the foreground.
    public static let willEnterForegroundNotification = Notification.Name(
        "UIApplicationWillEnterForegroundNotification"
    )
    /// Posted when the app becomes active.
    public static let didBecomeActiveNotification = Notification.Name("UIApplicationDidBecomeActiveNotification")
    /// Posted when the app is about to become inactive.
    public static let willResignActiveNotification = Notification.Name("UIApplicationWillResignActiveNotification")
    /// Posted when the app finished launching.
    public static let didFinishLaunchingNotification = Notification.Name(
        "UIApplicationDidFinishLaunchingNotification"
    )
    /// Posted when the app is about to end (not when it is killed by the watchdog).
    public static let willTerminateNotification = Notification.Name("UIApplicationWillTerminateNotification")
    /// Posted when the app's Background App Refresh status changes (S6).
    public static let backgroundRefreshStatusDidChangeNotification = Notification.Name(
        "UIApplicationBackgroundRefreshStatusDidChangeNotification"
    )
    /// Posted when the app receives a memory warning from the system, after
    /// `applicationDidReceiveMemoryWarning(_:)`. Declared only: nothing on Linux posts it yet
    /// (the daemon's and the simulator's memory pressure reclaim apps without warning them first).
    public static let didReceiveMemoryWarningNotification = Notification.Name(
        "UIApplicationDidReceiveMemoryWarningNotification"
    )
    /// Posted on a significant change in time (midnight, a time-zone or daylight-saving change),
    /// after `applicationSignificantTimeChange(_:)`. Declared only: nothing on Linux posts it.
    public static let significantTimeChangeNotification = Notification.Name(
        "UIApplicationSignificantTimeChangeNotification"
    )
    /// Posted shortly before the device locks and protected files become inaccessible, after
    /// `applicationProtectedDataWillBecomeUnavailable(_:)`. Declared only: Linux has no data
    /// protection classes, so nothing posts it.
    public static let protectedDataWillBecomeUnavailableNotification = Notification.Name(
        "UIApplicationProtectedDataWillBecomeUnavailable"
    )
    /// Posted when protected files become available again (the device unlocked), after
    /// `applicationProtectedDataDidBecomeAvailable(_:)`. Declared only: nothing on Linux posts it.
    public static let protectedDataDidBecomeAvailableNotification = Notification.Name(
        "UIApplicationProtectedDataDidBecomeAvailable"
    )
    /// Posted when the user takes a screenshot. Declared only: nothing on Linux posts it.
    public static let userDidTakeScreenshotNotification = Notification.Name(
        "UIApplicationUserDidTakeScreenshotNotification"
    )

    /// Posts the notification and calls the delegate method for a state change, on the main actor.
    ///
    /// One callback per change, whoever reports it: a change into the state the app was last
    /// told of is not delivered again. `main()` delivers the launch from the state the system
    /// welcomed the process in (active, for an app the daemon launched with `bgctl daemon open`),
    /// and the system's own word for the same changes arrives after it; that second word calls
    /// nothing (one `applicationDidBecomeActive(_:)` per activation).
    ///
    /// A scene-based app (``usesScenes``) gets the scene's callbacks and notification first
    /// (``deliverSceneTransition(to:)``), then `UIApplication`'s notification, and not the app
    /// delegate's four foreground and background methods; a launch into the foreground connects
    /// its scene after `application(_:didFinishLaunchingWithOptions:)`.
    @MainActor
    package func deliverTransition(from old: AppLifecycleState, to new: AppLifecycleState) {
        let center = NotificationCenter.default
        let scenes = usesScenes
        switch (old, new) {
        case (.notRunning, .inactive), (.terminated, .inactive):
            // Delivered once: `main()` may have delivered it before the system's own word came.
            guard !hasFinishedLaunching else { return }
            hasFinishedLaunching = true
            deliveredState = .inactive
            _ = delegate?.application(self, didFinishLaunchingWithOptions: nil)
            center.post(name: Self.didFinishLaunchingNotification, object: self)
            if scenes {
                deliverSceneTransition(to: .foregroundInactive)
                center.post(name: Self.willEnterForegroundNotification, object: self)
            }
        case (_, .active) where deliveredState == .active, (_, .inactive) where deliveredState == .inactive:
            return  // told already
        case (.inactive, .active):
            if scenes {
                deliverSceneTransition(to: .foregroundActive)
            } else {
                delegate?.applicationDidBecomeActive(self)
            }
            center.post(name: Self.didBecomeActiveNotification, object: self)
        case (.active, .inactive):
            if scenes {
                deliverSceneTransition(to: .foregroundInactive)
            } else {
                delegate?.applicationWillResignActive(self)
            }
            center.post(name: Self.willResignActiveNotification, object: self)
        case (.background, .inactive), (.suspended, .inactive):
            if scenes {
                deliverSceneTransition(to: .foregroundInactive)
            } else {
                delegate?.applicationWillEnterForeground(self)
            }
            center.post(name: Self.willEnterForegroundNotification, object: self)
        case (_, .terminated(.exited)), (_, .terminated(.userForceQuit)):
            if scenes { deliverSceneTransition(to: .unattached) }
            delegate?.applicationWillTerminate(self)
            center.post(name: Self.willTerminateNotification, object: self)
        default:
            break
        }
        deliveredState = State(new)
    }

    /// Calls `applicationDidEnterBackground(_:)` (for a scene-based app, the scene's
    /// `sceneDidEnterBackground(_:)` and `UIScene.didEnterBackgroundNotification` instead) and
    /// posts `didEnterBackgroundNotification`. The system's five seconds (S3) cover the whole call.
    @MainActor
    package func deliverDidEnterBackground() {
        deliveredState = .background
        if usesScenes {
            deliverSceneTransition(to: .background)
        } else {
            delegate?.applicationDidEnterBackground(self)
        }
        NotificationCenter.default.post(name: Self.didEnterBackgroundNotification, object: self)
    }

    /// After a launch in the background: `application(_:didFinishLaunchingWithOptions:)` and
    /// `didFinishLaunchingNotification`. After a resume there is nothing to call yet: the work
    /// the app was woken for is delivered by the scheduler that woke it.
    @MainActor
    package func deliverBackgroundWake() {
        guard !hasFinishedLaunching else { return }
        hasFinishedLaunching = true
        deliveredState = .background
        _ = delegate?.application(self, didFinishLaunchingWithOptions: nil)
        NotificationCenter.default.post(name: Self.didFinishLaunchingNotification, object: self)
    }

    /// Posts `backgroundRefreshStatusDidChangeNotification`.
    @MainActor
    package func deliverBackgroundRefreshStatusChange() {
        NotificationCenter.default.post(name: Self.backgroundRefreshStatusDidChangeNotification, object: self)
    }
}

extension UIApplication.State {
    /// The state as the app sees it: suspended and not-running apps run no code, so they are
    /// `background` (as ``UIApplication/applicationState`` reads them).
    init(_ state: AppLifecycleState) {
        switch state {
        case .active: self = .active
        case .inactive: self = .inactive
        case .background, .suspended, .notRunning, .terminated: self = .background
        }
    }
}
