import HeapModule

/// The device conditions a request needs, as bits; requests are grouped by them.
struct DeviceGates: OptionSet, Sendable, Hashable {
    let rawValue: UInt16

    init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    static let externalPower = DeviceGates(rawValue: 1 << 0)
    static let network = DeviceGates(rawValue: 1 << 1)
    static let idle = DeviceGates(rawValue: 1 << 2)
    static let unlocked = DeviceGates(rawValue: 1 << 3)
    static let batteryNotCritical = DeviceGates(rawValue: 1 << 4)
    static let notLowPower = DeviceGates(rawValue: 1 << 5)
    /// The system-wide Background App Refresh switch is on and nothing restricts it.
    static let refreshAllowed = DeviceGates(rawValue: 1 << 6)

    /// The gates a request needs: its own requirements plus its kind's factors.
    init(for request: TaskRequest, policy: SchedulingPolicy) {
        let factors = policy.factors(for: request.kind)
        var gates: DeviceGates = []
        if request.kind != .continuedProcessing { gates.insert(.unlocked) }
        if request.kind == .processing { gates.insert(.idle) }
        if request.requiresExternalPower && request.kind == .processing { gates.insert(.externalPower) }
        if request.requiresNetworkConnectivity && request.kind == .processing { gates.insert(.network) }
        if factors.contains(.criticallyLowBattery) { gates.insert(.batteryNotCritical) }
        if factors.contains(.lowPowerMode) { gates.insert(.notLowPower) }
        if factors.contains(.backgroundAppRefresh) { gates.insert(.refreshAllowed) }
        self = gates
    }

    /// The gates the device does not satisfy now.
    init(unmetBy device: DeviceConditions, refresh: DeviceRefreshSettings, policy: SchedulingPolicy) {
        var unmet: DeviceGates = []
        if device.powerSource != .externalPower { unmet.insert(.externalPower) }
        if !device.hasNetwork { unmet.insert(.network) }
        if !device.isIdle { unmet.insert(.idle) }
        if !device.unlockedSinceBoot { unmet.insert(.unlocked) }
        if device.isCriticallyLow(threshold: policy.criticalBatteryLevel) { unmet.insert(.batteryNotCritical) }
        if device.lowPowerMode || refresh.lowPowerMode { unmet.insert(.notLowPower) }
        if !refresh.systemSwitch || refresh.restricted || refresh.lowPowerMode || device.lowPowerMode {
            unmet.insert(.refreshAllowed)
        }
        self = unmet
    }
}

/// A pending request's place in the queue.
struct QueueEntry: Sendable, Comparable {
    let earliest: Instant
    let sequence: UInt64
    let app: Int
    let identifier: String

    static func < (lhs: QueueEntry, rhs: QueueEntry) -> Bool {
        (lhs.earliest, lhs.sequence) < (rhs.earliest, rhs.sequence)
    }

    static func == (lhs: QueueEntry, rhs: QueueEntry) -> Bool { lhs.sequence == rhs.sequence }
}

/// Every app's pending requests, indexed so that a change of device conditions or of time
/// costs in proportion to what it makes runnable, never a scan of every request.
///
/// Requests are grouped by the device gates they need; each group is a heap ordered by
/// earliest begin. A group is open when the device meets all its gates. Entries whose request
/// was replaced, cancelled or run are skipped lazily (their sequence no longer matches).
///
/// The groups are an array ordered by their gates, changed in place: walking a dictionary's
/// keys while changing its values made the dictionary, then the changed group's heap, a copy on
/// write, every entry of every pending request copied at each release (issue 28). There are at
/// most as many groups as combinations of gates the kinds of request need (a handful), so a
/// release costs O(groups + released × log pending), and the order it walks them in is the
/// gates' order, never a hash order.
struct TaskQueue: Sendable {
    /// One group: the requests that need exactly these gates.
    private struct Group: Sendable {
        let gates: DeviceGates
        var heap = Heap<QueueEntry>()
    }

    /// Ascending by the gates' raw value, each gates at most once.
    private var groups: [Group] = []
    private var nextSequence: UInt64 = 0

    /// Adds a request's entry and returns its sequence number, which the request keeps.
    mutating func insert(app: Int, request: TaskRequest, gates: DeviceGates) -> UInt64 {
        nextSequence += 1
        let entry = QueueEntry(
            earliest: request.earliestBegin ?? .zero,
            sequence: nextSequence,
            app: app,
            identifier: request.identifier
        )
        groups[groupIndex(for: gates)].heap.insert(entry)
        return nextSequence
    }

    /// The index of the group for `gates`, added (empty) in its place if there is none yet.
    private mutating func groupIndex(for gates: DeviceGates) -> Int {
        var low = 0
        var high = groups.count
        while low < high {
            let middle = (low + high) / 2
            if groups[middle].gates.rawValue < gates.rawValue { low = middle + 1 } else { high = middle }
        }
        if low == groups.count || groups[low].gates != gates { groups.insert(Group(gates: gates), at: low) }
        return low
    }

    /// Removes and returns every entry of an open group due by `now`, skipping stale ones, in
    /// queue order: earliest begin first, then submission (sequence).
    mutating func releaseDue(
        at now: Instant,
        unmet: DeviceGates,
        isCurrent: (QueueEntry) -> Bool
    ) -> [QueueEntry] {
        var released: [QueueEntry] = []
        // Indices, not the groups themselves: nothing else holds the array while a heap changes.
        for index in groups.indices where groups[index].gates.isDisjoint(with: unmet) {
            while let top = groups[index].heap.min, top.earliest <= now {
                groups[index].heap.removeMin()
                if isCurrent(top) { released.append(top) }
            }
        }
        return released.sorted()
    }

    /// The earliest begin among open groups' current entries (dropping stale tops on the way).
    mutating func nextDue(unmet: DeviceGates, isCurrent: (QueueEntry) -> Bool) -> Instant? {
        var best: Instant?
        for index in groups.indices where groups[index].gates.isDisjoint(with: unmet) {
            while let top = groups[index].heap.min, !isCurrent(top) { groups[index].heap.removeMin() }
            if let top = groups[index].heap.min, best.map({ top.earliest < $0 }) ?? true { best = top.earliest }
        }
        return best
    }

    /// The number of entries held, stale ones included (for tests and benchmarks).
    var entryCount: Int { groups.reduce(0) { $0 + $1.heap.count } }

    /// The number of groups.
    var groupCount: Int { groups.count }

    /// Each group's gates and where its heap keeps its entries, in the groups' order (for tests:
    /// a heap changed in place keeps its storage, a copy on write moves it).
    var storage: [(gates: DeviceGates, address: UInt)] {
        groups.map { group in
            (group.gates, group.heap.unordered.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) })
        }
    }
}
