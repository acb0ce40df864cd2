import BackgroundCore
import Testing

/// A decision costs in proportion to what may have changed, not to what waits (issue 25,
/// finding 4: each submit re-sorted and re-judged every waiting transfer, 7 submits a second at
/// 500 queued, 1.6 at 1,200 under `backgroundd`); and it decides exactly what a decision that
/// looks at every transfer decides.
@Suite("TransferQueue: decisions look at what changed, and decide as a full look would")
struct TransferQueueDecisionCostTests {
    static let apps = [AppID("com.example.a"), AppID("com.example.b"), AppID("com.example.c")]
    static let battery = DeviceConditions(powerSource: .battery, network: .wifi)

    static func key(_ app: Int, _ task: Int) -> TransferKey {
        TransferKey(app: apps[app], session: "s", task: task)
    }

    static func at(_ seconds: Int64) -> Instant { .zero + .seconds(seconds) }

    @Test("With 10,000 transfers waiting for power, a submit's decision looks at that one transfer")
    func submitLooksAtOne() {
        var queue = TransferQueue(device: Self.battery)
        for task in 1...10_000 {
            queue.submit(
                Self.key(0, task),
                TransferRequirements(isDiscretionary: true),
                earliestBegin: nil,
                at: Self.at(1)
            )
        }
        #expect(queue.decide(at: Self.at(1)).start.isEmpty)
        #expect(queue.lookedAtLastDecision == 10_000, "each was submitted since the last decision")
        queue.submit(Self.key(1, 1), TransferRequirements(), earliestBegin: nil, at: Self.at(2))
        #expect(queue.decide(at: Self.at(2)).start == [Self.key(1, 1)])
        #expect(queue.lookedAtLastDecision == 1)
        #expect(queue.decide(at: Self.at(3)).start.isEmpty)
        #expect(queue.lookedAtLastDecision == 0)
        queue.setDevice(DeviceConditions(powerSource: .externalPower, network: .wifi))
        #expect(queue.decide(at: Self.at(4)).start.count == 10_000)
        #expect(queue.lookedAtLastDecision == 10_001, "the device changed: every transfer")
    }

    @Test("Transfers held until a date are looked at again when it comes, not before")
    func timedConditionsClear() {
        var queue = TransferQueue()
        for task in 1...1_000 {
            queue.submit(Self.key(0, task), TransferRequirements(), earliestBegin: Self.at(100), at: Self.at(1))
        }
        #expect(queue.decide(at: Self.at(1)).wakeAt == Self.at(100))
        queue.submit(Self.key(1, 1), TransferRequirements(), earliestBegin: Self.at(50), at: Self.at(2))
        let second = queue.decide(at: Self.at(2))
        #expect(queue.lookedAtLastDecision == 1)
        #expect(second.wakeAt == Self.at(50))
        #expect(queue.decide(at: Self.at(50)).start == [Self.key(1, 1)])
        #expect(queue.lookedAtLastDecision == 1)
        let third = queue.decide(at: Self.at(100))
        #expect(third.start.count == 1_000 && third.wakeAt == nil)
        #expect(queue.lookedAtLastDecision == 1_000)
    }

    /// The decision of a queue made to look at every transfer (as after a device change).
    static func fullDecision(_ queue: inout TransferQueue, at now: Instant) -> TransferQueue.Decision {
        queue.setDevice(queue.device, network: queue.network)
        return queue.decide(at: now)
    }

    @Test("300 seeded runs of 300 random operations: every decision equals a full look's", arguments: 0..<300)
    func equalsAFullLook(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        var incremental = TransferQueue(device: Self.battery)
        var full = incremental
        var now = Self.at(0)
        let devices = [
            Self.battery, DeviceConditions(powerSource: .externalPower, network: .wifi),
            DeviceConditions(powerSource: .externalPower, network: .cellular),
            DeviceConditions(powerSource: .battery, network: .none),
        ]
        for step in 0..<300 {
            let app = Int(random.next() % 3)
            let key = Self.key(app, Int(random.next() % 12))
            switch random.next() % 10 {
            case 0, 1, 2:
                let requirements = TransferRequirements(
                    isDiscretionary: random.next() % 3 == 0,
                    allowsCellularAccess: random.next() % 4 != 0,
                    createdInBackground: random.next() % 4 == 0,
                    priority: Double(random.next() % 3) / 2
                )
                let begin = random.next() % 3 == 0 ? now + .seconds(Int64(random.next() % 200)) : nil
                incremental.submit(key, requirements, earliestBegin: begin, at: now)
                full.submit(key, requirements, earliestBegin: begin, at: now)
            case 3:
                incremental.remove(key)
                full.remove(key)
            case 4:
                incremental.stopped(key)
                full.stopped(key)
            case 5:
                let device = devices[Int(random.next() % UInt64(devices.count))]
                incremental.setDevice(device)
                full.setDevice(device)
            case 6:
                switch random.next() % 3 {
                case 0:
                    #expect(incremental.forceQuit(Self.apps[app]) == full.forceQuit(Self.apps[app]))
                case 1:
                    incremental.opened(Self.apps[app])
                    full.opened(Self.apps[app])
                default:
                    incremental.relaunched(Self.apps[app], at: now)
                    full.relaunched(Self.apps[app], at: now)
                }
            default:
                now = now + .seconds(Int64(random.next() % 90))
                let decided = incremental.decide(at: now)
                let expected = Self.fullDecision(&full, at: now)
                #expect(decided == expected, "seed \(seed), step \(step)")
                #expect(incremental.transfers == full.transfers, "seed \(seed), step \(step)")
            }
        }
    }
}
