import BackgroundCore
import BackgroundSimulator
import Testing

/// `bgctl fuzz --jobs N`'s bookkeeping, without processes: fake workers run the batches the
/// dealer sends them, finishing in an order drawn from a seed, and the actions are compared.
@Suite("Fuzzing in worker processes: seeds dealt in batches, results merged in seed order")
struct SeedDealerTests {
    /// Workers that run what the dealer sends, one batch at a time each, finishing in an order
    /// drawn from `order`; a seed in `crashing` kills the worker that runs it.
    struct Workers {
        var dealer: SeedDealer
        var violating: Set<UInt64>
        var crashing: Set<UInt64>
        var order: SplitMix64
        var queues: [SeedDealer.Worker: [ClosedRange<UInt64>]] = [:]
        var stopped: Set<SeedDealer.Worker> = []
        var started: [SeedDealer.Worker] = []
        /// The actions that report results, in the order the dealer gave them.
        var reported: [SeedDealer.Action] = []

        init(
            seeds: ClosedRange<UInt64>,
            batchSize: UInt64,
            jobs: Int,
            violating: Set<UInt64>,
            crashing: Set<UInt64>,
            order: UInt64
        ) {
            dealer = SeedDealer(seeds: seeds, batchSize: batchSize, jobs: jobs)
            self.violating = violating
            self.crashing = crashing
            self.order = SplitMix64(seed: order)
        }

        mutating func apply(_ actions: [SeedDealer.Action]) {
            for action in actions {
                switch action {
                case .start(let worker):
                    started.append(worker)
                    queues[worker] = []
                case .send(let worker, let batch):
                    #expect(!stopped.contains(worker), "a batch sent after the worker's input was closed")
                    queues[worker, default: []].append(batch)
                    #expect(queues[worker]!.count <= dealer.depth)
                case .stop(let worker): stopped.insert(worker)
                case .violation, .crash, .abandon, .finish: reported.append(action)
                }
            }
        }

        /// Runs until every worker has ended.
        mutating func run() {
            apply(dealer.start())
            while !queues.isEmpty {
                let worker = queues.keys.sorted()[Int.random(in: 0..<queues.count, using: &order)]
                guard let batch = queues[worker]!.first else {
                    if stopped.contains(worker) {
                        queues[worker] = nil
                        apply(dealer.ended(worker: worker, .exited(0)))
                    }
                    continue
                }
                if batch.contains(where: { crashing.contains($0) }) {
                    queues[worker] = nil
                    apply(dealer.ended(worker: worker, .signalled(4)))
                    continue
                }
                queues[worker]!.removeFirst()
                let found = batch.filter { violating.contains($0) }.map { (seed: $0, invariant: "limitsHold") }
                apply(dealer.finished(worker: worker, batch: batch, violations: found.reversed()))
            }
        }
    }

    @Test("Every seed is dealt once and its result reported in seed order, whatever order the workers finish in")
    func mergesInSeedOrder() {
        let violating: Set<UInt64> = [3, 17, 18, 64, 65, 199]
        for order in UInt64(0)..<20 {
            var workers = Workers(
                seeds: 0...199,
                batchSize: 7,
                jobs: 3,
                violating: violating,
                crashing: [],
                order: order
            )
            workers.run()
            let expected = violating.sorted().map { SeedDealer.Action.violation(seed: $0, invariant: "limitsHold") }
            #expect(workers.reported == expected + [.finish], "order \(order)")
            #expect(workers.started == [0, 1, 2])
            #expect(workers.dealer.merged == 200)
            #expect(workers.dealer.isOver)
        }
    }

    @Test("A crashed batch is dealt again seed by seed to a new worker: the crash is reported at its seed")
    func crashFoundAtItsSeed() {
        for order in UInt64(0)..<20 {
            var workers = Workers(
                seeds: 100...299,
                batchSize: 10,
                jobs: 2,
                violating: [120, 150, 151, 290],
                crashing: [155],
                order: order
            )
            workers.run()
            guard workers.reported.count == 6 else {
                Issue.record("order \(order): \(workers.reported)")
                continue
            }
            #expect(workers.reported[0] == .violation(seed: 120, invariant: "limitsHold"))
            #expect(workers.reported[1] == .violation(seed: 150, invariant: "limitsHold"))
            #expect(workers.reported[2] == .violation(seed: 151, invariant: "limitsHold"))
            guard case .crash(let crash) = workers.reported[3] else {
                Issue.record("order \(order): \(workers.reported[3]) is not the crash")
                continue
            }
            #expect(crash.seeds == 155...155)
            #expect(crash.seed == 155)
            #expect(crash.ending == .signalled(4))
            #expect(workers.reported[4] == .violation(seed: 290, invariant: "limitsHold"))
            #expect(workers.reported[5] == .finish)
            // The worker that crashed on the batch and the one that crashed on the seed alone were replaced.
            #expect(workers.started.count == 4)
        }
    }

    @Test("A crash that does not happen again seed by seed is reported with its batch")
    func crashNotReproduced() {
        var dealer = SeedDealer(seeds: 0...9, batchSize: 5, jobs: 1)
        #expect(dealer.start() == [.start(0), .send(0, 0...4), .send(0, 5...9), .stop(0)])
        // Killed from outside while running its first batch.
        #expect(dealer.ended(worker: 0, .signalled(9)) == [.start(1), .send(1, 0...0), .send(1, 1...1)])
        var reported: [SeedDealer.Action] = []
        var holding: [ClosedRange<UInt64>] = [0...0, 1...1]
        while let batch = holding.first {
            holding.removeFirst()
            for action in dealer.finished(worker: 1, batch: batch, violations: []) {
                switch action {
                case .send(_, let next): holding.append(next)
                case .stop: break
                default: reported.append(action)
                }
            }
        }
        let crash = SeedDealer.Crash(seeds: 0...4, seed: nil, worker: 0, ending: .signalled(9))
        #expect(reported == [.crash(crash), .finish])
        #expect(dealer.merged == 10)
    }

    @Test("A worker that exits with a status before finishing a batch abandons the run")
    func workerThatCannotStart() {
        var dealer = SeedDealer(seeds: 0...99, batchSize: 10, jobs: 2)
        _ = dealer.start()
        let actions = dealer.ended(worker: 1, .exited(64))
        #expect(actions == [.abandon("worker 1 exited with status 64 before it finished a batch"), .stop(0)])
        #expect(dealer.isOver)
    }

    @Test("Workers that keep crashing stop the run instead of starting one worker per seed")
    func crashesAreBounded() {
        var workers = Workers(seeds: 0...99, batchSize: 1, jobs: 2, violating: [], crashing: Set(0...99), order: 1)
        workers.run()
        #expect(workers.reported.contains { if case .abandon = $0 { true } else { false } })
        #expect(workers.started.count <= SeedDealer.maximumCrashes + 2)
    }

    @Test("Batches: no more workers than batches, sizes within bounds, a range ending at the last seed")
    func batches() {
        #expect(SeedDealer.batchSize(count: 20, jobs: 3) == 1)
        #expect(SeedDealer.batchSize(count: 300, jobs: 2) == 9)
        #expect(SeedDealer.batchSize(count: 1_000_000, jobs: 2) == 64)
        var dealer = SeedDealer(seeds: UInt64.max - 2...UInt64.max, batchSize: 2, jobs: 4)
        let last = UInt64.max
        // Two batches: two workers, one batch each, their inputs closed at once.
        #expect(
            dealer.start() == [
                .start(0), .start(1), .send(0, last - 2...last - 1), .send(1, last...last), .stop(1), .stop(0),
            ]
        )
        #expect(dealer.finished(worker: 1, batch: last...last, violations: [(last, "custom")]) == [])
        #expect(
            dealer.finished(worker: 0, batch: last - 2...last - 1, violations: []) == [
                .violation(seed: last, invariant: "custom"), .finish,
            ]
        )
        #expect(dealer.ended(worker: 0, .exited(0)) == [])
        #expect(dealer.ended(worker: 1, .exited(0)) == [])
    }

    @Test("A result for a batch the worker was not running abandons the run")
    func unexpectedResult() {
        var dealer = SeedDealer(seeds: 0...99, batchSize: 10, jobs: 1)
        _ = dealer.start()
        #expect(
            dealer.finished(worker: 0, batch: 10...19, violations: []).first
                == .abandon("worker 0 reported seeds 10...19, which it was not running")
        )
    }
}
