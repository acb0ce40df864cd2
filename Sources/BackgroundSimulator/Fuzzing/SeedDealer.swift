/// Deals a range of fuzz seeds to worker processes in batches, and puts what they found back in
/// seed order, whatever order the workers finish in: the bookkeeping of `bgctl fuzz --jobs N`.
///
/// A state machine in the house style: it takes inputs (a worker finished a batch, a worker
/// ended) and returns actions (start a worker, send it a batch, close its input, report a
/// violation or a crash); the command carries them out with real processes and pipes, and the
/// tests compare action lists. Nothing here reads a clock or touches a process.
///
/// - Each worker holds at most ``depth`` batches, so it never waits for the parent between two.
/// - Results are merged in seed order: a violation is reported only when every seed before it
///   has been reported, so the output is the single-process run's, byte for byte.
/// - A worker that dies with batches outstanding crashed in the first of them (a worker runs
///   its batches in order). That batch is dealt again one seed at a time to a new worker: the
///   seed that crashes again is reported with its worker's ending; when none does, the batch is
///   reported as a crash that did not reproduce. Every other seed still gets its result.
/// - A worker that exits with a status before finishing any batch (it could not start: a usage
///   error, a missing library) abandons the run: a new one would do the same.
///
/// ```swift
/// var dealer = SeedDealer(seeds: 0...9_999, batchSize: 64, jobs: 2)
/// var actions = dealer.start()          // [.start(0), .send(0, 0...63), .send(0, 64...127), .start(1), …]
/// actions = dealer.finished(worker: 0, batch: 0...63, violations: [])
/// ```
package struct SeedDealer {
    /// A worker, numbered from 0 in the order started (a replacement gets the next number).
    package typealias Worker = Int

    /// How a worker process ended.
    package enum Ending: Equatable, Sendable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal):
                "was killed by signal \(signal)\(Self.signalName(signal).map { " (\($0))" } ?? "")"
            }
        }

        /// The usual name of a signal on Linux, for the report.
        static func signalName(_ signal: Int32) -> String? {
            let names: [Int32: String] = [
                1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
                8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM",
            ]
            return names[signal]
        }
    }

    /// A worker that died running seeds.
    package struct Crash: Equatable, Sendable {
        /// The seeds it was running when it died (a whole batch, or the one seed found again).
        package var seeds: ClosedRange<UInt64>
        /// The seed that crashed, when a worker died running it alone; `nil` when the batch ran
        /// clean seed by seed (the crash did not reproduce).
        package var seed: UInt64?
        /// The worker whose ending this is (its standard error tells the rest).
        package var worker: Worker
        /// How it ended.
        package var ending: Ending

        package init(seeds: ClosedRange<UInt64>, seed: UInt64?, worker: Worker, ending: Ending) {
            self.seeds = seeds
            self.seed = seed
            self.worker = worker
            self.ending = ending
        }
    }

    /// What to do.
    package enum Action: Equatable, Sendable {
        /// Start a worker process.
        case start(Worker)
        /// Hand a worker a batch of seeds.
        case send(Worker, ClosedRange<UInt64>)
        /// Close a worker's input: it gets no more batches and exits after the ones it holds.
        case stop(Worker)
        /// The next result in seed order: the seed's run broke this invariant (its raw value);
        /// the parent runs the seed again, shrinks and reports it.
        case violation(seed: UInt64, invariant: String)
        /// The next result in seed order: a worker died running these seeds.
        case crash(Crash)
        /// A worker could not run at all: the run ends here, with this said.
        case abandon(String)
        /// Every seed has its result: the run is over.
        case finish
    }

    private enum Merged {
        case batch(last: UInt64, violations: [(seed: UInt64, invariant: String)])
        case crash(Crash)
    }

    private struct WorkerState {
        var outstanding: [ClosedRange<UInt64>] = []
        var stopped = false
        var finishedAny = false
    }

    /// A batch that crashed, dealt again one seed at a time.
    private struct Suspect {
        var seeds: ClosedRange<UInt64>
        var crash: Crash
        var reproduced = false
    }

    /// The seeds of the run.
    package let seeds: ClosedRange<UInt64>
    /// Seeds in one batch (at least 1).
    package let batchSize: UInt64
    /// How many workers run at once.
    package let jobs: Int
    /// How many batches a worker holds at once.
    package let depth = 2

    /// The next seed never dealt, or `nil` once all were.
    private var nextFresh: UInt64?
    /// Batches to deal before fresh ones: those a dead worker held.
    private var again: [ClosedRange<UInt64>] = []
    private var workers: [Worker: WorkerState] = [:]
    private var nextWorker: Worker = 0
    /// Results waiting for the seeds before them, by their first seed.
    private var results: [UInt64: Merged] = [:]
    private var suspects: [Suspect] = []
    /// The next seed to report, or `nil` once every seed was.
    private var cursor: UInt64?
    private var abandoned = false
    private var crashes = 0
    /// How many worker crashes a run survives: past them, something kills every worker (it
    /// cannot start, or the machine is out of memory), and the run stops instead of starting
    /// one worker per seed.
    package static let maximumCrashes = 16
    /// How many seeds have their result reported, in order.
    package private(set) var merged = 0

    /// A dealer for `seeds`, in batches of `batchSize`, to `jobs` workers at once.
    package init(seeds: ClosedRange<UInt64>, batchSize: UInt64, jobs: Int) {
        self.seeds = seeds
        self.batchSize = max(batchSize, 1)
        self.jobs = max(jobs, 1)
        self.nextFresh = seeds.lowerBound
        self.cursor = seeds.lowerBound
    }

    /// A batch size that gives every worker many batches (so a slow one is caught up by the
    /// others) and at most 64 seeds (tens of milliseconds of work, so results flow steadily).
    package static func batchSize(count: Int, jobs: Int) -> UInt64 {
        UInt64(min(max(count / (max(jobs, 1) * 16), 1), 64))
    }

    /// Whether every seed has its result, or the run was abandoned.
    package var isOver: Bool { cursor == nil || abandoned }

    /// The workers started and not yet ended.
    package var liveWorkers: [Worker] { workers.keys.sorted() }

    /// Starts the workers (no more than there are batches) and deals their first batches, one
    /// to each in turn, so that every worker has work before any has two.
    package mutating func start() -> [Action] {
        var actions: [Action] = []
        let batches = (UInt64(seeds.count) + batchSize - 1) / batchSize
        let started = (0..<Int(min(UInt64(jobs), batches))).map { _ in startWorker(dealing: false, into: &actions) }
        for limit in 1...depth {
            for worker in started { deal(to: worker, upTo: limit, into: &actions) }
        }
        return actions
    }

    /// A worker finished a batch: `violations` are the seeds whose run broke an invariant.
    /// - Returns: What to do next, the batch's results among them once every seed before it is
    ///   reported.
    package mutating func finished(
        worker: Worker,
        batch: ClosedRange<UInt64>,
        violations: [(seed: UInt64, invariant: String)]
    ) -> [Action] {
        guard !isOver, var state = workers[worker], state.outstanding.first == batch else {
            return abandon("worker \(worker) reported seeds \(batch), which it was not running")
        }
        state.outstanding.removeFirst()
        state.finishedAny = true
        workers[worker] = state
        let sorted = violations.filter { batch.contains($0.seed) }.sorted { $0.seed < $1.seed }
        results[batch.lowerBound] = .batch(last: batch.upperBound, violations: sorted)
        var actions: [Action] = []
        deal(to: worker, into: &actions)
        merge(into: &actions)
        return actions
    }

    /// A worker's process ended (its output read to the end).
    package mutating func ended(worker: Worker, _ ending: Ending) -> [Action] {
        guard let state = workers.removeValue(forKey: worker), !isOver else { return [] }
        guard let crashed = state.outstanding.first else { return [] }
        if case .exited(let status) = ending, status != 0, !state.finishedAny {
            return abandon("worker \(worker) \(ending) before it finished a batch")
        }
        crashes += 1
        if crashes > Self.maximumCrashes {
            return abandon("workers crashed \(crashes) times (the last: worker \(worker) \(ending)); stopped")
        }
        let crash = Crash(
            seeds: crashed,
            seed: crashed.count == 1 ? crashed.lowerBound : nil,
            worker: worker,
            ending: ending
        )
        var actions: [Action] = []
        if crashed.count == 1 {
            results[crashed.lowerBound] = .crash(crash)
            if let index = suspects.firstIndex(where: { $0.seeds.contains(crashed.lowerBound) }) {
                suspects[index].reproduced = true
            }
            again.insert(contentsOf: state.outstanding.dropFirst(), at: 0)
        } else {
            suspects.append(Suspect(seeds: crashed, crash: crash))
            let singles = crashed.map { $0...$0 }
            again.insert(contentsOf: singles + state.outstanding.dropFirst(), at: 0)
        }
        if hasBatches { startWorker(into: &actions) }
        merge(into: &actions)
        return actions
    }

    // MARK: Dealing

    private var hasBatches: Bool { !again.isEmpty || nextFresh != nil }

    @discardableResult
    private mutating func startWorker(dealing: Bool = true, into actions: inout [Action]) -> Worker {
        let worker = nextWorker
        nextWorker += 1
        workers[worker] = WorkerState()
        actions.append(.start(worker))
        if dealing { deal(to: worker, into: &actions) }
        return worker
    }

    /// Tops the worker up to `limit` batches (``depth`` unless said); closes its input once there
    /// is nothing left to deal.
    private mutating func deal(to worker: Worker, upTo limit: Int? = nil, into actions: inout [Action]) {
        guard var state = workers[worker], !state.stopped else { return }
        while state.outstanding.count < (limit ?? depth), let batch = nextBatch() {
            state.outstanding.append(batch)
            actions.append(.send(worker, batch))
        }
        if !hasBatches {
            state.stopped = true
            actions.append(.stop(worker))
        }
        workers[worker] = state
    }

    private mutating func nextBatch() -> ClosedRange<UInt64>? {
        if !again.isEmpty { return again.removeFirst() }
        guard let first = nextFresh else { return nil }
        let room = seeds.upperBound - first
        let last = room < batchSize ? seeds.upperBound : first + (batchSize - 1)
        nextFresh = last == seeds.upperBound ? nil : last + 1
        return first...last
    }

    // MARK: Merging

    /// Reports every result whose seeds come next, in seed order.
    private mutating func merge(into actions: inout [Action]) {
        while let seed = cursor, let result = results.removeValue(forKey: seed) {
            let last: UInt64
            switch result {
            case .batch(let end, let violations):
                last = end
                for violation in violations {
                    actions.append(.violation(seed: violation.seed, invariant: violation.invariant))
                }
            case .crash(let crash):
                last = crash.seeds.upperBound
                actions.append(.crash(crash))
            }
            merged += Int(last - seed) + 1
            if let index = suspects.firstIndex(where: { $0.seeds.upperBound == last }) {
                let suspect = suspects.remove(at: index)
                if !suspect.reproduced { actions.append(.crash(suspect.crash)) }
            }
            cursor = last == seeds.upperBound ? nil : last + 1
        }
        if cursor == nil { actions.append(.finish) }
    }

    private mutating func abandon(_ reason: String) -> [Action] {
        guard !abandoned else { return [] }
        abandoned = true
        return [.abandon(reason)] + workers.keys.sorted().map { .stop($0) }
    }
}
