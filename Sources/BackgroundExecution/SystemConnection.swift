public import BackgroundCore

/// The link between an app's `UIApplication` and the background execution system that governs it.
///
/// Three systems implement it: ``EmbeddedSystem`` (in the app's own process, on the real clock or
/// a ``ManualClock``), the daemon connection and the simulator. App code never calls it
/// directly; it calls `UIApplication`, which forwards here.
public protocol SystemConnection: AnyObject, Sendable {
    /// The app this connection speaks for. Everything it does is confined to this app.
    var app: AppID { get }

    /// Asks for a background task assertion.
    ///
    /// - Returns: The granted identifier, or `nil` when the assertion cannot be granted; the
    ///   system then calls `expirationHandler` on the main actor, as iOS does.
    func beginAssertion(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID?

    /// Ends an assertion. Unknown or already-ended identifiers are logged, never fatal.
    func endAssertion(_ id: AssertionID)

    /// The app's remaining background time, or `nil` while it is in the foreground.
    var backgroundTimeRemaining: Duration? { get }

    /// The app's lifecycle state as the system sees it.
    var lifecycleState: AppLifecycleState { get }

    /// The app's Background App Refresh status.
    var backgroundRefreshStatus: BackgroundRefreshStatus { get }

    /// Tells the system which application object receives lifecycle callbacks and notifications.
    func attach(_ application: UIApplication)
}
