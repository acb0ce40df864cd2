public import BackgroundCore

/// One background transfer on the simulator's virtual network, as tests read it
/// (``Simulator/transfers(of:)``).
public struct SimulatedTransfer: Sendable, Hashable {
    /// Where the transfer is.
    public enum Phase: String, Sendable, Hashable {
        /// Queued: waiting for its conditions or its turn.
        case waiting
        /// Running: bytes move, or an attempt is under way or backing off.
        case running
        /// Completed or failed; its events wait for the app.
        case completed
    }

    /// What the app asked for (requirements, URL, session).
    public internal(set) var checkpoint: TransferCheckpoint
    /// The body's length.
    public internal(set) var size: Int64
    /// Bytes moved so far.
    public var bytes: Int64 { Int64(done.rounded(.down)) }
    /// Where it is.
    public internal(set) var phase: Phase = .waiting
    /// How many attempts failed so far.
    public internal(set) var failedAttempts = 0

    var done: Double = 0
    /// When bytes of the current attempt start arriving (its start plus the latency).
    var dataFrom: Instant?
    /// When the current attempt fails with a server error, instead of sending bytes.
    var failsAt: Instant?
    /// A retry's start, while the transfer backs off.
    var retryAt: Instant?
    /// The failures still to come, in order.
    var failures: [VirtualResource.Failure]
    /// The quarters of the size reported so far.
    var quarters = 0
    /// Whether its completion was handed to a session (the app calls `delivered` after it).
    var deliveredToApp = false
    /// The resume data its cancellation handed back, delivered with its completion too.
    var resumeData: [UInt8]?

    /// The key.
    public var key: TransferKey { TransferKey(app: checkpoint.app, session: checkpoint.session, task: checkpoint.task) }

    init(checkpoint: TransferCheckpoint, resource: VirtualResource) {
        self.checkpoint = checkpoint
        self.size = resource.size
        self.failures = resource.failures
    }

    /// Starts from `byte` (resume data): the quarters below it are not reported again.
    mutating func resumeAt(_ byte: Int64) {
        done = Double(max(0, byte))
        while quarters < 3, done >= Double(size * Int64(quarters + 1) / 4) { quarters += 1 }
    }

    /// Whether it takes a share of the bandwidth: an attempt under way, not failing or backing off.
    var sharesBandwidth: Bool { phase == .running && retryAt == nil && failsAt == nil && dataFrom != nil }

    /// Whether bytes are arriving at `now`.
    func isFlowing(at now: Instant) -> Bool {
        phase == .running && retryAt == nil && failsAt == nil && (dataFrom.map { $0 <= now } ?? false)
    }

    /// The byte at which the next scripted failure happens, if one is about bytes.
    var nextFailureByte: Int64? {
        switch failures.first {
        case .dropAt(let byte), .changesAt(let byte): return byte
        case .serverError, nil: return nil
        }
    }

    /// The next byte count worth an event: the end, the next failure, the next quarter.
    var nextMark: Int64 {
        let quarter = quarters < 3 ? size * Int64(quarters + 1) / 4 : size
        // The least of the three beyond `done` (asked at every count and timer: no array built).
        var mark: Int64?
        func consider(_ candidate: Int64) {
            if Double(candidate) > done { mark = min(mark ?? candidate, candidate) }
        }
        consider(size)
        consider(quarter)
        consider(nextFailureByte ?? size)
        return mark ?? size
    }
}
