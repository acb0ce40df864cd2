public import BackgroundProtocol

/// One client connection as the engine sees it: somewhere to send responses, and a way to end it.
///
/// The socket server implements it over NIO; tests implement it with a recorder. ``send(_:)``
/// never blocks: a client that does not read its messages is closed once too much is waiting for
/// it (``DaemonLimits/maximumPendingBytesPerClient``), so it never stalls the daemon or another app.
public protocol ClientLink: AnyObject, Sendable {
    /// A number unique among the daemon's connections, for logs.
    var linkID: Int { get }
    /// Queues a response for the client.
    func send(_ response: DaemonResponse)
    /// Ends the connection, logging `reason`.
    func close(reason: String)
}

/// The daemon's limits on what clients can make it hold or do.
public struct DaemonLimits: Sendable, Hashable {
    /// The largest frame a client may send (and the daemon sends): 1 MiB.
    public var maximumFrameBytes: Int
    /// The largest first frame, the hello, read before the client is known: 64 KiB (a hello is
    /// a few hundred bytes; a declaration after a restart lists what the app holds). Its
    /// decoding is bounded too: at most 4,096 elements in one array or keyed value.
    public var maximumHelloBytes: Int
    /// How many bytes may wait, unread, for one client before it is disconnected: 4 MiB.
    public var maximumPendingBytesPerClient: Int
    /// How long a client may take to send its hello: 2 s.
    public var helloTimeout: Duration
    /// The most connections at once, of every uid together: 1,024.
    public var maximumConnections: Int
    /// The most connections one uid other than root and the daemon's user holds at once: 16.
    /// Bytes buffered for one such uid are bounded with it: 16 × 64 KiB before hellos, and
    /// a uid that may not say hello as anything is closed at its hello.
    public var maximumConnectionsPerUser: Int
    /// Connections beyond ``maximumConnections`` that only root and the daemon's user may
    /// take, so their `bgctl` gets through however many connections others hold: 16.
    public var reservedConnections: Int
    /// The uids that may use ``reservedConnections`` and are not held to
    /// ``maximumConnectionsPerUser``; nil (the default) for root and the daemon's user.
    public var privilegedUserIDs: Set<UInt32>?

    /// Creates limits.
    public init(
        maximumFrameBytes: Int = FrameDecoder.defaultMaximumFrameBytes,
        maximumHelloBytes: Int = 64 << 10,
        maximumPendingBytesPerClient: Int = 4 << 20,
        helloTimeout: Duration = .seconds(2),
        maximumConnections: Int = 1024,
        maximumConnectionsPerUser: Int = 16,
        reservedConnections: Int = 16,
        privilegedUserIDs: Set<UInt32>? = nil
    ) {
        self.maximumFrameBytes = maximumFrameBytes
        self.maximumHelloBytes = maximumHelloBytes
        self.maximumPendingBytesPerClient = maximumPendingBytesPerClient
        self.helloTimeout = helloTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerUser = maximumConnectionsPerUser
        self.reservedConnections = reservedConnections
        self.privilegedUserIDs = privilegedUserIDs
    }

    /// The wire's bounds for the hello.
    var helloWireLimits: WireLimits {
        WireLimits(maximumMessageBytes: min(maximumHelloBytes, maximumFrameBytes), maximumCount: 4096)
    }

    /// The defaults.
    public static let standard = DaemonLimits()
}
