public import BackgroundCore

/// What a client sends the daemon (`backgroundd`), one per frame.
///
/// A connection starts with ``hello(_:)``; everything else before it, or a second hello, closes
/// the connection. After the hello, an app sends ``app(_:)`` messages (events about itself only)
/// and a control client (`bgctl`, a desktop shell) sends ``control(_:)`` requests.
public enum DaemonRequest: Sendable, Hashable, Codable {
    /// Who the client says it is and which protocol it speaks.
    case hello(ClientHello)
    /// An app's event (its calls and callbacks' returns), as the core's event.
    case app(AppMessage)
    /// A control client's request.
    case control(ControlRequest)
}

/// What the daemon sends a client, one per frame.
public enum DaemonResponse: Sendable, Hashable, Codable {
    /// The hello was accepted.
    case welcome(DaemonWelcome)
    /// The hello was refused; the daemon closes the connection after this frame.
    case refused(DaemonRefusal)
    /// An answer to an app's event or effects pushed to the app.
    case system(SystemMessage)
    /// The answer to a control request.
    case control(ControlReply)
    /// One line of the daemon's log (after ``ControlRequest/followLog``).
    case logLine(String)
}

/// The first message of every connection.
public struct ClientHello: Sendable, Hashable, Codable {
    /// The ``ProtocolCodec/version`` the client speaks.
    public var protocolVersion: Int
    /// What the client is.
    public var role: ClientRole
    /// For an app's process that was connected to a daemon before (the daemon restarted, or the
    /// connection broke): what it holds, so the daemon takes it over instead of starting afresh.
    public var declaration: AppDeclaration?

    /// Creates a hello.
    ///
    /// - Parameter protocolVersion: The version to claim; nil (the default) for this code's,
    ///   ``ProtocolCodec/version``, read when the hello is made (a default argument of
    ///   `ProtocolCodec.version` itself was compiled into each caller, and a caller built before
    ///   a version change went on claiming the old one).
    public init(
        role: ClientRole,
        protocolVersion: Int? = nil,
        declaration: AppDeclaration? = nil
    ) {
        self.protocolVersion = protocolVersion ?? Int(ProtocolCodec.version)
        self.role = role
        self.declaration = declaration
    }
}

/// What a client is.
public enum ClientRole: Sendable, Hashable, Codable {
    /// The process of this installed app (checked: its uid, and its executable against the
    /// app's manifest; an app the daemon started is known by its inherited socket).
    case app(AppID)
    /// A control client: `bgctl` or a desktop shell, run by the daemon's own user.
    case control
}

/// The daemon's answer to an accepted hello.
public struct DaemonWelcome: Sendable, Hashable, Codable {
    /// The protocol version the connection uses.
    public var protocolVersion: Int
    /// For an app: its current incarnation (its process), so its runtime names it in what it sends.
    public var incarnation: Incarnation?
    /// For an app: the identifier its next granted assertion gets.
    public var nextAssertionID: AssertionID?
    /// For an app: its lifecycle state.
    public var state: AppLifecycleState?
    /// For an app: the state its runtime decides begins from (docs/core-contract.md); the
    /// daemon pushes it again (``SystemMessage/state(_:)``) whenever it changes.
    public var grant: GrantState?
    /// For an app: its Background App Refresh status (changes come as
    /// ``Effect/backgroundRefreshStatusChanged(_:_:)``).
    public var refreshStatus: BackgroundRefreshStatus?
    /// For an app: whether the device supports background GPU use.
    public var supportsBackgroundGPU: Bool?
    /// For an app: whether Low Power Mode is on (changes come as
    /// ``Effect/powerStateChanged(_:lowPowerMode:)``).
    public var lowPowerMode: Bool?

    /// Creates a welcome.
    public init(
        protocolVersion: Int = Int(ProtocolCodec.version),
        incarnation: Incarnation? = nil,
        nextAssertionID: AssertionID? = nil,
        state: AppLifecycleState? = nil,
        grant: GrantState? = nil,
        refreshStatus: BackgroundRefreshStatus? = nil,
        supportsBackgroundGPU: Bool? = nil,
        lowPowerMode: Bool? = nil
    ) {
        self.protocolVersion = protocolVersion
        self.incarnation = incarnation
        self.nextAssertionID = nextAssertionID
        self.state = state
        self.grant = grant
        self.refreshStatus = refreshStatus
        self.supportsBackgroundGPU = supportsBackgroundGPU
        self.lowPowerMode = lowPowerMode
    }
}

/// Why the daemon refused a hello or a message.
public struct DaemonRefusal: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kind of refusal.
    public enum Code: String, Sendable, Hashable, Codable {
        /// The client speaks another protocol version.
        case unsupportedVersion
        /// The app is not installed (no manifest names it).
        case notInstalled
        /// The peer is not the process it claims to be (uid or executable).
        case notTheApp
        /// The request is not one this client may make (another app's state, a system event).
        case notPermitted
        /// The message broke the protocol (before the hello, a second hello).
        case protocolViolation
    }

    /// The kind of refusal.
    public var code: Code
    /// What was wrong, in one line.
    public var message: String

    /// Creates a refusal.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
