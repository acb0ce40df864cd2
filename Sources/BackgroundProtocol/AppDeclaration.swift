public import BackgroundCore

/// What an app's process holds, declared again when it connects to a daemon that did not see
/// it begin (the daemon restarted, or the connection broke and the daemon forgot the process).
///
/// The app's runtime sends it in its ``ClientHello``; the daemon takes the process over in the
/// state it declares (launched, in the foreground or the background, its launch handlers
/// registered, its launch finished) and records its assertions under the identifiers the app's
/// code holds, with a fresh budget: the app is never ended for a gap the daemon's own restart
/// caused.
public struct AppDeclaration: Sendable, Hashable, Codable {
    /// Where the app was, as far as it knew (`active`, `inactive` or `background`).
    public var lifecycleState: AppLifecycleState
    /// Whether its launch had finished (no more launch handlers may be registered).
    public var launchFinished: Bool
    /// The task identifiers it registered launch handlers for, sorted.
    public var registeredIdentifiers: [String]
    /// The assertions it holds, by identifier, in order.
    public var assertions: [DeclaredAssertion]

    /// Creates a declaration.
    public init(
        lifecycleState: AppLifecycleState,
        launchFinished: Bool,
        registeredIdentifiers: [String],
        assertions: [DeclaredAssertion]
    ) {
        self.lifecycleState = lifecycleState
        self.launchFinished = launchFinished
        self.registeredIdentifiers = registeredIdentifiers
        self.assertions = assertions
    }
}

/// One assertion an app's process holds: what its begin said.
public struct DeclaredAssertion: Sendable, Hashable, Codable {
    /// The identifier the app's code holds.
    public var id: AssertionID
    /// The name it was begun with.
    public var name: String
    /// Where it was begun.
    public var origin: CallSite
    /// Whether it has an expiration handler.
    public var hasExpirationHandler: Bool

    /// Creates a declared assertion.
    public init(id: AssertionID, name: String, origin: CallSite, hasExpirationHandler: Bool) {
        self.id = id
        self.name = name
        self.origin = origin
        self.hasExpirationHandler = hasExpirationHandler
    }
}
