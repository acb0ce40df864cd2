/// The numbers the transfer engine works by: retries, checkpoints and bounds.
///
/// ```swift
/// var policy = TransferPolicy()
/// policy.initialBackoff = .milliseconds(10)   // a test's loopback server fails fast
/// ```
public struct TransferPolicy: Sendable, Hashable {
    /// The wait before the first retry of a transient failure (a reset, a timeout, a 5xx);
    /// it doubles for each further retry, up to ``maximumBackoff``.
    public var initialBackoff: Duration = .seconds(1)
    /// The longest wait between two attempts.
    public var maximumBackoff: Duration = .seconds(60)
    /// The most attempts one transfer makes, within its resource timeout; also the most times a
    /// download starts over because the resource changed or the server ignored its range.
    public var maximumAttempts: Int = 12
    /// A checkpoint is written after at least this many new bytes…
    public var checkpointBytes: Int64 = 4 << 20
    /// …or after this long, whichever comes first (with at least one new byte). A checkpoint is
    /// written without `fsync`: the page cache outlives a killed process, so `kill -9` costs at
    /// most the bytes since the last one.
    public var checkpointInterval: Duration = .seconds(1)
    /// A download's partial file is `fsync`ed, on another thread, after at least this many new
    /// bytes…
    public var syncBytes: Int64 = 64 << 20
    /// …or after this long, whichever comes first: what a power loss (or a reboot) can cost a
    /// download, besides the checkpoint interval and the sync's own time (docs/transfers.md).
    public var syncInterval: Duration = .seconds(5)
    /// The most header fields a response may have.
    public var maximumHeaderFields: Int = 100
    /// The most bytes a response's header fields may take, names and values together.
    public var maximumHeaderBytes: Int = 64 << 10
    /// The most redirects one request follows (Apple's: 16).
    public var maximumRedirects: Int = 16
    /// A `206` that ends before the resource and carried fewer bytes than this counts as a
    /// failed attempt (with its backoff); a larger part is continued at once. A server that
    /// answers one byte at a time then costs at most ``maximumAttempts`` requests, not one per
    /// byte until the resource timeout (issue 25, finding 8).
    public var minimumPartBytes: Int64 = 16 << 10
    /// The size of the chunks an upload reads from its file.
    public var uploadChunkBytes: Int = 64 << 10

    /// Creates the default policy.
    public init() {}

    /// The wait before attempt number `attempt` (2 for the first retry).
    public func backoff(beforeAttempt attempt: Int) -> Duration {
        guard attempt > 1 else { return .zero }
        var delay = initialBackoff
        for _ in 2..<min(attempt, 40) where delay < maximumBackoff { delay *= 2 }
        return min(delay, maximumBackoff)
    }
}
