/// What a transfer service can say about each transfer it holds: running, or waiting and why
/// (`bgctl why` against a running app).
///
/// Instants are on the service's own timeline: `originUnixSeconds` is its T+0 on the wall clock.
///
/// ```swift
/// let status = service.transferStatus()
/// for transfer in status?.transfers ?? [] { print(transfer.eligibility.renderText()) }
/// ```
public struct TransferStatus: Sendable, Hashable, Codable {
    /// One transfer the service holds that has not completed.
    public struct Transfer: Sendable, Hashable, Codable {
        /// Which transfer (its `<session>#<task>` is ``TransferKey/identifier``).
        public var key: TransferKey
        /// Whether the engine is moving its bytes now.
        public var isRunning: Bool
        /// Why it waits (or that it may run), as ``TransferQueue/eligibility(of:at:)`` says.
        public var eligibility: Eligibility

        /// Creates an entry.
        public init(key: TransferKey, isRunning: Bool, eligibility: Eligibility) {
            self.key = key
            self.isRunning = isRunning
            self.eligibility = eligibility
        }
    }

    /// The instant of the answer, on the service's timeline.
    public var now: Instant
    /// The wall-clock time of the service's T+0, in seconds since 1970.
    public var originUnixSeconds: Double
    /// Every transfer the queue holds, in key order.
    public var transfers: [Transfer]

    /// Creates a status.
    public init(now: Instant, originUnixSeconds: Double, transfers: [Transfer]) {
        self.now = now
        self.originUnixSeconds = originUnixSeconds
        self.transfers = transfers
    }
}

extension TransferQueue {
    /// Every transfer the queue holds, running or waiting, with its eligibility, in key order.
    public func status(at now: Instant, originUnixSeconds: Double) -> TransferStatus {
        TransferStatus(
            now: now,
            originUnixSeconds: originUnixSeconds,
            transfers: transfers.compactMap { entry in
                eligibility(of: entry.key, at: now).map {
                    TransferStatus.Transfer(key: entry.key, isRunning: entry.isRunning, eligibility: $0)
                }
            }
        )
    }
}
