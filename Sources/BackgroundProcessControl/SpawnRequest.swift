/// How to start an app: what the daemon reads from the app's manifest, plus its connection.
public struct SpawnRequest: Sendable, Hashable {
    /// The environment variable that tells the app which descriptor is its connection to the
    /// daemon (set only when ``connection`` is given): `BACKGROUND_CONNECTION_FD=3`.
    public static let connectionVariable = "BACKGROUND_CONNECTION_FD"
    /// The descriptor number the connection has in the app: 3, the first after the standard three.
    public static let connectionDescriptor: Int32 = 3

    /// Where one of the app's standard streams goes.
    public enum StandardStream: Sendable, Hashable {
        /// The daemon's own stream of the same number.
        case inherit
        /// `/dev/null`.
        case null
        /// This descriptor of the daemon (a log file, a pipe); the daemon keeps its own copy.
        case descriptor(Int32)
    }

    /// The app, usually its bundle identifier: names its cgroup and appears in messages.
    public var label: String
    /// The absolute path of the program to run; it is `argv[0]` too.
    public var executable: String
    /// The arguments after `argv[0]`.
    public var arguments: [String]
    /// Exactly the app's environment (nothing is inherited from the daemon), written to the
    /// program in the order of its names; ``connectionVariable`` is added when there is a
    /// connection.
    public var environment: [String: String]
    /// The absolute path of the app's working directory, its container.
    public var workingDirectory: String
    /// An already-connected socket (or any descriptor) of the daemon that becomes descriptor
    /// ``connectionDescriptor`` in the app. The daemon keeps its own copy and closes it when it
    /// wants; no other descriptor of the daemon reaches the app.
    public var connection: Int32?
    /// Standard input; `/dev/null` unless set.
    public var standardInput: StandardStream
    /// Standard output; the daemon's unless set.
    public var standardOutput: StandardStream
    /// Standard error; the daemon's unless set.
    public var standardError: StandardStream
    /// The user and groups to run as (only a root daemon can set them); nil runs the app as the
    /// daemon's user.
    public var user: ProcessUser?
    /// The file mode creation mask the app starts with; nil keeps the daemon's.
    public var umask: UInt32?

    /// A request with an empty environment and standard input from `/dev/null`.
    public init(
        label: String,
        executable: String,
        arguments: [String] = [],
        environment: [String: String] = [:],
        workingDirectory: String,
        connection: Int32? = nil,
        standardInput: StandardStream = .null,
        standardOutput: StandardStream = .inherit,
        standardError: StandardStream = .inherit,
        user: ProcessUser? = nil,
        umask: UInt32? = nil
    ) {
        self.label = label
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.connection = connection
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.user = user
        self.umask = umask
    }
}
