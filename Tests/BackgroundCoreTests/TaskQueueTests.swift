import Testing

@testable import BackgroundCore

/// The queue of pending requests (issue 28): a release returns what fell due in the groups the
/// device opens, skips stale entries, in one order whatever the order groups were made or entries
/// filed in, and changes the heaps in place. Before, it walked the dictionary's keys while
/// changing its values, which copied the dictionary and then the changed heap whole at every
/// release: the addresses below moved.
@Suite("The task queue: a release returns what fell due, in queue order, and copies nothing")
struct TaskQueueTests {
    /// Gates of three kinds of request: a refresh, a processing request that needs external power,
    /// and one that needs a network.
    static let plain: DeviceGates = [.unlocked, .refreshAllowed]
    static let power: DeviceGates = [.unlocked, .idle, .externalPower]
    static let network: DeviceGates = [.unlocked, .idle, .network]

    /// A queue and what stands for the apps' pending requests: the sequence of each identifier's
    /// current entry (any other entry is stale), as `BackgroundSystem.isCurrent` reads them.
    struct Model {
        var queue = TaskQueue()
        var current: [String: UInt64] = [:]

        /// Files a request (replacing the one with its identifier, whose entry goes stale).
        mutating func file(_ identifier: String, app: Int = 0, at earliest: Instant, _ gates: DeviceGates) {
            let request = TaskRequest.processing(identifier, notBefore: earliest)
            current[identifier] = queue.insert(app: app, request: request, gates: gates)
        }

        /// Releases what is due and forgets it, as the system marks it released.
        mutating func release(at now: Instant, unmet: DeviceGates = []) -> [QueueEntry] {
            let current = current
            let released = queue.releaseDue(at: now, unmet: unmet) { current[$0.identifier] == $0.sequence }
            for entry in released { self.current[entry.identifier] = nil }
            return released
        }

        mutating func nextDue(unmet: DeviceGates = []) -> Instant? {
            let current = current
            return queue.nextDue(unmet: unmet) { current[$0.identifier] == $0.sequence }
        }
    }

    @Test("Due entries of every open group are released, earliest first; closed groups and later entries stay")
    func releasesOpenGroups() {
        var model = Model()
        model.file("refresh-10", at: .t(10), Self.plain)
        model.file("refresh-30", at: .t(30), Self.plain)
        model.file("power-5", at: .t(5), Self.power)
        model.file("power-20", at: .t(20), Self.power)
        model.file("network-15", at: .t(15), Self.network)
        #expect(model.queue.groupCount == 3)
        // On battery: the power group is closed.
        let onBattery = model.release(at: .t(20), unmet: [.externalPower])
        #expect(onBattery.map(\.identifier) == ["refresh-10", "network-15"])
        #expect(model.queue.entryCount == 3)
        let charging = model.release(at: .t(20))
        #expect(charging.map(\.identifier) == ["power-5", "power-20"])
        #expect(charging.map(\.earliest) == [.t(5), .t(20)])
        #expect(model.queue.entryCount == 1)
        #expect(model.release(at: .t(29)).isEmpty)
        #expect(model.release(at: .t(30)).map(\.identifier) == ["refresh-30"])
        #expect(model.queue.entryCount == 0)
        #expect(model.nextDue() == nil)
    }

    @Test("Stale entries (a request replaced or cancelled) are dropped, never released")
    func staleEntriesSkipped() {
        var model = Model()
        model.file("replaced", at: .t(10), Self.power)
        model.file("cancelled", at: .t(11), Self.network)
        model.file("kept", at: .t(12), Self.plain)
        model.file("replaced", at: .t(13), Self.power)  // the entry at T+10 goes stale
        model.current["cancelled"] = nil
        #expect(model.queue.entryCount == 4)
        let released = model.release(at: .t(20))
        #expect(released.map(\.identifier) == ["kept", "replaced"])
        #expect(released.map(\.earliest) == [.t(12), .t(13)], "the replacement, not the stale entry")
        #expect(model.queue.entryCount == 0, "the stale entries left the heaps too")
    }

    @Test("Release order is earliest begin, then submission, whatever order groups were made and entries filed in")
    func releaseOrderIsDeterministic() {
        let seed: UInt64 = 0x7A5C_0028
        print("TaskQueueTests.releaseOrderIsDeterministic seed \(seed)")
        var random = SplitMix64(seed: seed)
        // Sixteen groups (every combination of four gates beside .unlocked), three instants, so
        // entries tie within and across groups.
        let extra: [DeviceGates] = [.idle, .externalPower, .network, .notLowPower]
        let allGates = (0..<16).map { bits in
            extra.indices.reduce(DeviceGates.unlocked) { bits & (1 << $1) != 0 ? $0.union(extra[$1]) : $0 }
        }
        var filed: [(identifier: String, earliest: Instant, gates: DeviceGates)] = []
        for number in 0..<200 {
            let gates = allGates[Int(random.next() % 16)]
            filed.append(("task\(number)", .t(10 * Int64(1 + random.next() % 3)), gates))
        }
        var forward = Model()
        for entry in filed { forward.file(entry.identifier, at: entry.earliest, entry.gates) }
        // The same entries in the same order, into groups made in the opposite order (by a stale
        // entry each, filed first).
        var reversed = Model()
        for (index, gates) in allGates.reversed().enumerated() {
            reversed.file("stale\(index)", at: .t(1), gates)
            reversed.current["stale\(index)"] = nil
        }
        for entry in filed { reversed.file(entry.identifier, at: entry.earliest, entry.gates) }
        // Ties go to the earlier filed: a stable sort of the filing order by instant.
        let expected = filed.indices.sorted { (filed[$0].earliest, $0) < (filed[$1].earliest, $1) }
            .map { filed[$0].identifier }
        let released = forward.release(at: .t(30))
        #expect(released.map(\.identifier) == expected, "seed \(seed)")
        #expect(reversed.release(at: .t(30)).map(\.identifier) == expected, "seed \(seed)")
        let ties = zip(released, released.dropFirst()).filter { $0.earliest == $1.earliest }
        #expect(ties.count > 100 && ties.allSatisfy { $0.sequence < $1.sequence }, "seed \(seed)")
    }

    @Test("Right after a release, nextDue is the earliest current entry of the open groups")
    func nextDueAfterRelease() {
        var model = Model()
        model.file("power-5", at: .t(5), Self.power)
        model.file("power-50", at: .t(50), Self.power)
        model.file("network-10", at: .t(10), Self.network)
        model.file("network-40", at: .t(40), Self.network)
        model.file("refresh-30", at: .t(30), Self.plain)
        model.file("refresh-60", at: .t(60), Self.plain)
        #expect(model.release(at: .t(10), unmet: [.externalPower]).map(\.identifier) == ["network-10"])
        // The power group's T+5 is due but closed: it does not count while the group is.
        #expect(model.nextDue(unmet: [.externalPower]) == .t(30))
        #expect(model.nextDue() == .t(5))
        #expect(model.release(at: .t(30)).map(\.identifier) == ["power-5", "refresh-30"])
        #expect(model.nextDue() == .t(40))
        // A stale top is dropped on the way: the network group's next is then T+90.
        model.file("network-40", at: .t(90), Self.network)
        #expect(model.nextDue(unmet: [.externalPower]) == .t(60))
        #expect(model.nextDue(unmet: [.externalPower, .refreshAllowed]) == .t(90))
        #expect(model.queue.entryCount == 3, "power-50, refresh-60, network-40 at T+90")
        #expect(model.nextDue(unmet: [.unlocked]) == nil, "every group needs the device unlocked")
    }

    @Test("A release and nextDue change the heaps in place: 10,000 pending entries are not copied")
    func releaseCopiesNothing() {
        var model = Model()
        for number in 0..<10_000 {
            let gates = number % 10 == 0 ? Self.plain : Self.power
            model.file("task\(number)", app: number / 10, at: .t(100 + Int64(number)), gates)
        }
        let before = model.queue.storage
        #expect(model.release(at: .t(149)).count == 50)
        // The plain group's top (task50 at T+150) goes stale: nextDue drops it and reads task51.
        model.file("task50", at: .t(50_000), Self.plain)
        #expect(model.nextDue() == .t(151))
        #expect(model.queue.entryCount == 10_000 - 50 + 1 - 1)
        let after = model.queue.storage
        #expect(after.map(\.gates) == before.map(\.gates))
        #expect(after.map(\.address) == before.map(\.address), "a heap was copied on write")
    }

    @Test("A plug-in that releases requests leaves the system's queue in place and delivers them in order")
    func plugInReleasesInPlace() throws {
        var d = try Driver.opened()
        try d.device(.idleOnBattery, at: .zero)
        for number in 0..<10 {
            let due = Instant.t(100 * Int64(number + 1))
            let request = TaskRequest.processing(notes.processingID(number), notBefore: due, power: true)
            try d.submit(notes, request, at: .t(1))
        }
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(100_000)), at: .t(1))
        try d.background(notes, at: .t(2))
        #expect(try d.tick(at: .t(350)).taskRuns.isEmpty, "on battery")
        let before = d.system.queue.storage
        #expect(before.count == 2)
        let runs = try d.device(.idleCharging, at: .t(350)).taskRuns
        #expect(runs.map(\.request.identifier) == (0..<3).map { notes.processingID($0) })
        #expect(d.system.queue.storage.map(\.address) == before.map(\.address), "the queue was copied on write")
        #expect(d.system.queue.entryCount == 8)
    }
}
