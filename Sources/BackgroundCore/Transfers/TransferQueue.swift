import HeapModule

/// The system's rules for background transfers, as a value: which waiting transfers may start,
/// which running ones must pause, why each one waits, who is cancelled at a force quit, and when
/// an app may be relaunched to hear its transfers' events (Apple's doubling delay, reference §5.6).
///
/// Pure like the rest of the core: every answer is a function of the queue and the instant
/// passed in. Embedded mode, the simulator and `backgroundd` each keep one and carry out its
/// decisions with their own engine.
///
/// ```swift
/// var queue = TransferQueue()
/// queue.setDevice(DeviceConditions(powerSource: .battery, network: .cellular))
/// queue.submit(key, TransferRequirements(isDiscretionary: true), earliestBegin: nil, at: now)
/// queue.decide(at: now).start                     // []: it waits for power and Wi-Fi
/// queue.eligibility(of: key, at: now)?.unmet      // [.requiresExternalPower, .requiresUnmeteredNetwork]
/// ```
public struct TransferQueue: Sendable, Hashable {
    /// One transfer the queue knows: waiting or running.
    public struct Entry: Sendable, Hashable, Codable {
        /// Which transfer.
        public var key: TransferKey
        /// What it needs.
        public var requirements: TransferRequirements
        /// Not before this instant (`earliestBeginDate`).
        public var earliestBegin: Instant?
        /// When the app resumed it.
        public var submittedAt: Instant
        /// Whether the engine is moving its bytes.
        public var isRunning: Bool
    }

    /// What the shell does now.
    public struct Decision: Sendable, Hashable {
        /// Transfers to start, the highest priority first (then the oldest, then by key).
        public var start: [TransferKey] = []
        /// Running transfers whose conditions no longer hold: stop them at their checkpoint;
        /// they start again when the queue says so.
        public var pause: [TransferKey] = []
        /// When a waiting transfer's timed condition clears: ask again then.
        public var wakeAt: Instant?
    }

    /// One app's relaunch delay (reference §5.6).
    struct LaunchDelay: Sendable, Hashable {
        var delay: Duration = .zero
        var until: Instant?
    }

    /// The numbers.
    public var policy: TransferSchedulingPolicy
    /// The device's conditions, as last reported.
    public private(set) var device: DeviceConditions
    /// The network, as last reported.
    public private(set) var network: TransferNetwork
    var entries: [TransferKey: Entry] = [:]
    /// The transfers not running.
    var waitingKeys: Set<TransferKey> = []
    /// Whether the device or the network changed since the last decision: the next one looks at
    /// every transfer.
    var deviceChanged = false
    /// Transfers whose eligibility may have changed since they were last looked at (submitted
    /// again, stopped, their app opened or relaunched): the next decision looks at them.
    var unsettled: Set<TransferKey> = []
    /// Waiting transfers held by a timed condition (`earliestBeginDate`, the relaunch delay),
    /// and when it clears: a decision at or after that instant looks at them again.
    var clearsAt: [TransferKey: Instant] = [:]
    /// ``clearsAt`` in time order, for the next to clear; an entry that no longer matches
    /// ``clearsAt`` is stale and skipped. Derived: left out of equality.
    var clearing = Heap<Clearing>()
    /// How many transfers the last ``decide(at:)`` looked at: what a decision costs, for tests
    /// and benchmarks. Left out of equality.
    public internal(set) var lookedAtLastDecision = 0

    /// A waiting transfer and when its timed condition clears, ordered by that instant, then key.
    struct Clearing: Comparable, Sendable {
        let at: Instant
        let key: TransferKey

        static func < (lhs: Clearing, rhs: Clearing) -> Bool {
            (lhs.at, lhs.key) < (rhs.at, rhs.key)
        }
    }
    var forceQuitApps: Set<AppID> = []
    var launchDelays: [AppID: LaunchDelay] = [:]
    /// Creates an empty queue for a device (by default on Wi-Fi, on battery).
    public init(
        policy: TransferSchedulingPolicy = TransferSchedulingPolicy(),
        device: DeviceConditions = DeviceConditions()
    ) {
        self.policy = policy
        self.device = device
        self.network = TransferNetwork(network: device.network)
    }

    /// Every transfer the queue holds, ordered by key.
    public var transfers: [Entry] { entries.values.sorted { $0.key < $1.key } }

    /// The transfer with this key, if the queue holds it.
    public func entry(_ key: TransferKey) -> Entry? { entries[key] }

    /// A transfer the app resumed (or one restored from a checkpoint): it waits until
    /// ``decide(at:)`` starts it. Submitting a key again replaces its requirements.
    public mutating func submit(
        _ key: TransferKey,
        _ requirements: TransferRequirements,
        earliestBegin: Instant?,
        at now: Instant
    ) {
        let running = entries[key]?.isRunning ?? false
        entries[key] = Entry(
            key: key,
            requirements: requirements,
            earliestBegin: earliestBegin,
            submittedAt: entries[key]?.submittedAt ?? now,
            isRunning: running
        )
        if !running { waitingKeys.insert(key) }
        unsettled.insert(key)  // new requirements: a running transfer may have to pause
    }

    /// The transfer ended (completed, failed or cancelled): the queue forgets it.
    public mutating func remove(_ key: TransferKey) {
        entries[key] = nil
        waitingKeys.remove(key)
        unsettled.remove(key)
        clearsAt[key] = nil
    }

    /// The engine could not start a transfer the queue started, or stopped one without ending
    /// it: it waits again, and a later ``decide(at:)`` starts it.
    public mutating func stopped(_ key: TransferKey) {
        guard entries[key] != nil else { return }
        entries[key]?.isRunning = false
        waitingKeys.insert(key)
        unsettled.insert(key)
    }

    /// The device changed; the network is the device's, cellular counted as expensive.
    public mutating func setDevice(_ conditions: DeviceConditions) {
        setDevice(conditions, network: TransferNetwork(network: conditions.network))
    }

    /// The device changed, with what the device's conditions do not say about the network
    /// (an expensive Wi-Fi hotspot, Low Data Mode).
    public mutating func setDevice(_ conditions: DeviceConditions, network: TransferNetwork) {
        device = conditions
        deviceChanged = true
        var network = network
        network.network = conditions.network
        network.isExpensive = network.isExpensive || conditions.network == .cellular
        self.network = network
    }

    /// The user force-quit the app: every transfer of the app is cancelled (the shell ends each
    /// with `NSURLErrorCancelled`, -999, and the reason `userForceQuitApplication`, 0), and the
    /// app is not relaunched for transfer events until the user opens it (reference §5.4).
    ///
    /// - Returns: The app's transfers, in key order, now forgotten.
    public mutating func forceQuit(_ app: AppID) -> [TransferKey] {
        forceQuitApps.insert(app)
        launchDelays[app] = nil
        let cancelled = entries.keys.filter { $0.app == app }.sorted()
        for key in cancelled { remove(key) }
        return cancelled
    }

    /// Whether the user force-quit the app and has not opened it since.
    public func isForceQuit(_ app: AppID) -> Bool { forceQuitApps.contains(app) }

    /// The user brought the app to the foreground: the force-quit flag is cleared and its
    /// relaunch delay resets to zero (reference §5.6).
    public mutating func opened(_ app: AppID) {
        forceQuitApps.remove(app)
        launchDelays[app] = nil
        unsettle(app)
    }

    /// The app's waiting transfers may be eligible now, or later than they were: the next
    /// decision looks at them.
    mutating func unsettle(_ app: AppID) {
        for key in waitingKeys where key.app == app { unsettled.insert(key) }
    }
}

extension TransferQueue {
    /// Equal queues hold the same transfers in the same states, on the same device, with the
    /// same apps force-quit and delayed, and the same transfers still to look at (the time
    /// index, ``clearing``, is derived from ``clearsAt``).
    public static func == (lhs: TransferQueue, rhs: TransferQueue) -> Bool {
        lhs.policy == rhs.policy && lhs.device == rhs.device && lhs.network == rhs.network
            && lhs.entries == rhs.entries && lhs.waitingKeys == rhs.waitingKeys
            && lhs.deviceChanged == rhs.deviceChanged && lhs.unsettled == rhs.unsettled
            && lhs.clearsAt == rhs.clearsAt && lhs.forceQuitApps == rhs.forceQuitApps
            && lhs.launchDelays == rhs.launchDelays
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(policy)
        hasher.combine(device)
        hasher.combine(network)
        hasher.combine(entries)
        hasher.combine(waitingKeys)
        hasher.combine(deviceChanged)
        hasher.combine(unsettled)
        hasher.combine(clearsAt)
        hasher.combine(forceQuitApps)
        hasher.combine(launchDelays)
    }
}

/// The numbers of ``TransferQueue``, with their sources.
public struct TransferSchedulingPolicy: Sendable, Hashable, Codable {
    /// The first relaunch delay: 60 s, then doubled at every relaunch (reference §5.6, forum 128813).
    public var firstRelaunchDelay: Duration = .seconds(60)
    /// The longest relaunch delay (**ours**: Apple gives no ceiling; 1 day keeps it finite).
    public var maximumRelaunchDelay: Duration = .seconds(86_400)

    /// Creates Apple's numbers.
    public init() {}
}
