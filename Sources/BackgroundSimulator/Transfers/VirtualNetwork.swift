/// The simulator's network for background transfers: how fast bytes move, how long a request
/// waits for its first byte, and what the servers hold, on virtual time.
///
/// Whether there is a network at all, and which (Wi-Fi, cellular, metered), is the device's
/// (``DeviceDriver/setNetwork(_:metered:)``); this is what a connected network carries. Running
/// transfers share the bandwidth equally.
///
/// ```swift
/// simulator.network.bandwidth = 250_000                       // 250 kB/s
/// simulator.network.serve("https://example.com/book.epub", VirtualResource(size: 5_000_000,
///     failures: [.dropAt(1_000_000)]))                         // the connection drops once at 1 MB
/// ```
public struct VirtualNetwork: Sendable, Hashable {
    /// Bytes per second the network carries, shared by the transfers running; at least 1.
    public var bandwidth: Int64 {
        didSet { bandwidth = max(1, bandwidth) }
    }
    /// From a request's start to its first byte.
    public var latency: Duration
    /// What the servers hold, by URL.
    public var resources: [String: VirtualResource]
    /// The size of a resource no one declared (``serve(_:_:)``).
    public var defaultSize: Int64

    /// Creates a network: 1 MB/s, 50 ms to the first byte, every unknown resource 100 kB.
    public init(
        bandwidth: Int64 = 1_000_000,
        latency: Duration = .milliseconds(50),
        resources: [String: VirtualResource] = [:],
        defaultSize: Int64 = 100_000
    ) {
        self.bandwidth = max(1, bandwidth)
        self.latency = latency
        self.resources = resources
        self.defaultSize = defaultSize
    }

    /// Declares what a URL answers (a download's body, or an upload's size when sent to it).
    public mutating func serve(_ url: String, _ resource: VirtualResource) {
        resources[url] = resource
    }

    /// What a URL answers.
    public func resource(at url: String) -> VirtualResource {
        resources[url] ?? VirtualResource(size: defaultSize)
    }
}

/// A resource on the virtual network: its size, and what goes wrong when it is fetched.
public struct VirtualResource: Sendable, Hashable {
    /// A scripted failure, each happening once, in order.
    public enum Failure: Sendable, Hashable, CustomStringConvertible {
        /// The connection drops when byte N has arrived (`NSURLErrorNetworkConnectionLost`,
        /// retried): the retry resumes from byte N with a `Range` request.
        case dropAt(Int64)
        /// The next `attempts` requests are answered with this status (a `5xx`), each retried
        /// after the engine's backoff; past the engine's attempts, it completes with it.
        case serverError(status: Int, attempts: Int)
        /// The resource changes when byte N has arrived: the connection drops, and the retry's
        /// `If-Range` no longer matches, so it starts over from byte 0.
        case changesAt(Int64)

        public var description: String {
            switch self {
            case .dropAt(let byte): return "connection dropped at byte \(byte)"
            case .serverError(let status, let attempts): return "HTTP \(status) × \(attempts)"
            case .changesAt(let byte): return "resource changed at byte \(byte)"
            }
        }
    }

    /// The body's length in bytes.
    public var size: Int64
    /// What goes wrong, in order.
    public var failures: [Failure]

    /// Creates a resource.
    public init(size: Int64, failures: [Failure] = []) {
        self.size = max(0, size)
        self.failures = failures
    }
}
