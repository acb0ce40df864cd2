/// What the system remembers to explain the past: each request identifier's recent runs, and
/// the device's condition intervals (recorded once for the device, not per request).
///
/// Both are bounded (``SchedulingPolicy/historyRunsPerIdentifier``,
/// ``SchedulingPolicy/historyDeviceIntervals``) and drop their oldest entries. A request's waits
/// are derived from the intervals when asked, so a change of conditions costs one append
/// whatever the number of pending requests.
public struct DecisionHistory: Sendable, Hashable, Codable {
    /// Runs per app and identifier, oldest first.
    public internal(set) var runs: [AppID: [String: [RunRecord]]] = [:]
    /// The device's condition intervals, oldest first; each lasts until the next one's start.
    public internal(set) var device: [DeviceConditionInterval] = []

    /// Creates an empty history.
    public init() {}

    /// The app's runs of one identifier, oldest first.
    public func runs(of app: AppID, identifier: String) -> [RunRecord] { runs[app]?[identifier] ?? [] }

    mutating func record(_ run: RunRecord, of app: AppID, limit: Int) {
        // In place: a copy of the list taken out and put back would copy every kept run.
        Self.append(run, to: &runs[app, default: [:]][run.identifier, default: []], limit: limit)
    }

    private static func append(_ run: RunRecord, to list: inout [RunRecord], limit: Int) {
        list.append(run)
        if list.count > limit { list.removeFirst(list.count - limit) }
    }

    /// Appends an interval if the unmet set changed; the first records what held before it.
    mutating func recordDevice(unmet: [WaitReason], before: [WaitReason], at now: Instant, limit: Int) {
        if device.isEmpty { device.append(DeviceConditionInterval(from: .zero, unmet: before)) }
        guard device.last?.unmet != unmet else { return }
        if device.last?.from == now {
            device[device.count - 1].unmet = unmet
        } else {
            device.append(DeviceConditionInterval(from: now, unmet: unmet))
        }
        if device.count > limit { device.removeFirst(device.count - limit) }
    }

    /// Since when `reason` has held without a break up to the newest interval; `nil` when the
    /// newest interval does not hold it (or nothing is recorded). When the oldest kept interval
    /// holds it, that interval's start is the answer (older ones were dropped).
    func heldSince(_ reason: WaitReason) -> Instant? {
        var since: Instant?
        for interval in device.reversed() {
            guard interval.unmet.contains(reason) else { break }
            since = interval.from
        }
        return since
    }

    /// How long each condition held a request needing `needed` back, from `start` to `end`.
    ///
    /// Time before the oldest recorded interval counts with `current` when nothing is recorded,
    /// and is not counted otherwise (it was dropped). `earliestBeginDate` counts from `start`
    /// to `earliestBegin`. Longest first; ties in ``WaitReason`` order.
    func waits(
        needing needed: [WaitReason],
        earliestBegin: Instant?,
        from start: Instant,
        to end: Instant,
        current: [WaitReason]
    ) -> [ConditionWait] {
        guard end > start else { return [] }
        var totals: [WaitReason: Duration] = [:]
        if let earliestBegin, earliestBegin > start {
            totals[.earliestBeginDate] = min(earliestBegin, end) - start
        }
        let intervals = device.isEmpty ? [DeviceConditionInterval(from: start, unmet: current)] : device
        let needs = Set(needed)
        // Only the intervals from the one in force at `start` to the one in force at `end`:
        // found by bisection, so a run's waits cost in proportion to the changes it waited
        // through, not to the whole record.
        for index in firstInterval(overlapping: start, in: intervals)..<intervals.count {
            let interval = intervals[index]
            if interval.from >= end { break }
            let until = index + 1 < intervals.count ? intervals[index + 1].from : end
            let lower = max(interval.from, start)
            let upper = min(until, end)
            guard upper > lower else { continue }
            for reason in interval.unmet where needs.contains(reason) {
                totals[reason, default: .zero] += upper - lower
            }
        }
        return totals.map { ConditionWait(reason: $0.key, duration: $0.value) }
            .sorted { ($0.duration, $1.reason) > ($1.duration, $0.reason) }
    }

    /// The index of the last interval starting at or before `start` (0 if none does): every
    /// interval before it ended by `start`.
    private func firstInterval(overlapping start: Instant, in intervals: [DeviceConditionInterval]) -> Int {
        var low = 0
        var high = intervals.count
        while low < high {
            let middle = (low + high) / 2
            if intervals[middle].from <= start { low = middle + 1 } else { high = middle }
        }
        return max(0, low - 1)
    }
}
