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
    /// How many bytes may wait, unread, for one client before it is disconnected: 4 MiB.
    public var maximumPendingBytesPerClient: Int
    /// How long a client may take to send its hello: 5 s.
    public var helloTimeout: Duration
    /// The most connections at once: 1,024.
    public var maximumConnections: Int

    /// Creates limits.
    public init(
        maximumFrameBytes: Int = FrameDecoder.defaultMaximumFrameBytes,
        maximumPendingBytesPerClient: Int = 4 << 20,
        helloTimeout: Duration = .seconds(5),
        maximumConnections: Int = 1024
    ) {
        self.maximumFrameBytes = maximumFrameBytes
        self.maximumPendingBytesPerClient = maximumPendingBytesPerClient
        self.helloTimeout = helloTimeout
        self.maximumConnections = maximumConnections
    }

    /// The defaults.
    public static let standard = DaemonLimits()
}
