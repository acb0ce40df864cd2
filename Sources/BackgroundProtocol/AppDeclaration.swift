public import BackgroundCore

/// What an app's process holds, declared again when it connects to a daemon that did not see
/// it begin (the daemon restarted, or the connection broke and the daemon forgot the process).
///
/// The app's runtime sends it in its ``ClientHello``; the daemon takes the process over in the
/// state it declares (launched, in the foreground or the background, its launch handlers
/// registered, its launch finished), records its assertions under the identifiers the app's
/// code holds, with a fresh budget, and its background modes as held again: the app is never
/// ended for a gap the daemon's own restart caused. A process the previous run of the daemon
/// started, which the restarted daemon adopted, declares the same way; its declaration is
/// checked against the adopted process (its pid) before it is applied.
public struct AppDeclaration: Sendable, Hashable, Codable {
    /// Where the app was, as far as it knew (`active`, `inactive` or `background`).
    public var lifecycleState: AppLifecycleState
    /// Whether its launch had finished (no more launch handlers may be registered).
    public var launchFinished: Bool
    /// The task identifiers it registered launch handlers for, sorted.
    public var registeredIdentifiers: [String]
    /// The assertions it holds, by identifier, in order.
    public var assertions: [DeclaredAssertion]
    /// The background modes whose activity it holds (``BackgroundCore/BackgroundMode``: audio,
    /// location, …), sorted by name. Absent in a hello of an older client: none.
    public var modes: [BackgroundMode]

    /// Creates a declaration.
    public init(
        lifecycleState: AppLifecycleState,
        launchFinished: Bool,
        registeredIdentifiers: [String],
        assertions: [DeclaredAssertion],
        modes: [BackgroundMode] = []
    ) {
        self.lifecycleState = lifecycleState
        self.launchFinished = launchFinished
        self.registeredIdentifiers = registeredIdentifiers
        self.assertions = assertions
        self.modes = modes
    }

    private enum CodingKeys: String, CodingKey {
        case lifecycleState, launchFinished, registeredIdentifiers, assertions, modes
    }

    /// Decodes a declaration; one without `modes` (sent by a client before they were declared)
    /// holds none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lifecycleState = try container.decode(AppLifecycleState.self, forKey: .lifecycleState)
        launchFinished = try container.decode(Bool.self, forKey: .launchFinished)
        registeredIdentifiers = try container.decode([String].self, forKey: .registeredIdentifiers)
        assertions = try container.decode([DeclaredAssertion].self, forKey: .assertions)
        modes = try container.decodeIfPresent([BackgroundMode].self, forKey: .modes) ?? []
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
