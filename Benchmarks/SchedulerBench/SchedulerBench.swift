// SchedulerBench: the scheduler's events at which requests fall due, with 100,000 pending
// requests across 10,000 apps, against the floor, a full scan of the same requests.
//
// A plain executable (not an ordo-one benchmark) of the Benchmarks package, target
// `SchedulerBench` with `path: "SchedulerBench"`, on SchedulerFixture (the system of
// SchedulerRecompute). From Benchmarks/:
//
//     swift build -c release --product SchedulerBench
//     .build/release/SchedulerBench due [device changes, default 2000] [idle s, default 600] [step s, default 30]
//     valgrind --tool=callgrind --instr-atstart=no .build/release/SchedulerBench first [apps] [per app] [idle s]
//
// `due`: the device sits on battery for the idle period while requests fall due; then every
// step the charger is plugged in or unplugged, and between the changes the shell's timer ticks
// at each wake-up the core asks for, as a daemon's does. So each plug-in releases what fell due
// while on battery, each tick on the charger releases what falls due at that instant (one
// request every 6 s), and ticks also run the deadlines of the tasks handed over (the benchmark
// never completes them: the watchdog ends them after 10 minutes). Every event is counted, the
// first plug-in after the idle period too (it is also printed alone). Beside each event, at the
// same instant and on the same power, the floor decides for every request whether it may run
// now. Wall time and this thread's CPU time per event; percentiles are nearest-rank.
//
// `first`: builds the system, idles as `due` does (600 s unless told), and runs the first
// plug-in alone between callgrind's start and stop, so its instructions can be compared across
// numbers of pending requests (they must not grow with them). With an idle time of 0 it is
// SchedulerRecompute's first operation (six requests of one app due).

import BackgroundCore
import CallgrindControl
import Glibc
import SchedulerFixture

@main
struct SchedulerBench {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let numbers = arguments.dropFirst().compactMap { Int($0) }
        switch arguments.first {
        case "due", "due-never":
            due(
                changes: numbers.count > 0 ? numbers[0] : 2_000,
                idle: .seconds(numbers.count > 1 ? numbers[1] : 600),
                step: .seconds(numbers.count > 2 ? numbers[2] : 30),
                appsComplete: arguments.first == "due"
            )
        case "first":
            first(
                apps: numbers.count > 0 ? numbers[0] : 10_000,
                requestsPerApp: numbers.count > 1 ? numbers[1] : 10,
                idle: .seconds(numbers.count > 2 ? numbers[2] : 600)
            )
        default:
            print("usage: SchedulerBench due|due-never [device changes] [idle seconds] [step seconds]")
            print("       SchedulerBench first [apps] [requests per app] [idle seconds]")
            exit(2)
        }
    }

    /// Events that release requests, timed one by one, each beside the floor.
    static func due(changes: Int, idle: Duration, step: Duration, appsComplete: Bool) {
        let fixture = SchedulerFixture()
        let pending = fixture.appCount * fixture.requestsPerApp
        print(
            "SchedulerBench \(appsComplete ? "due" : "due-never"): \(fixture.appCount) apps, \(pending) pending "
                + "requests; \(changes) device changes \(step.components.seconds) s apart (plug in, unplug), a tick "
                + "at each wake-up asked for between them, "
                + (appsComplete ? "each task completed as it is handed over" : "no task ever completed")
                + "; the first plug-in after \(idle.components.seconds) s on battery"
        )
        fixture.idle(for: idle)
        var run = DueRun(capacity: changes * 16, appsComplete: appsComplete)
        for change in 0..<changes {
            let changeAt = fixture.now + (change == 0 ? .zero : step)
            // The shell's timer: a tick at each wake-up the core asks for before the change.
            while let wakeup = fixture.wakeup, wakeup > fixture.now, wakeup <= changeAt {
                run.time(.tick, fixture) { fixture.tick(at: wakeup) }
                run.completeHandedOver(fixture)
            }
            run.time(fixture.pluggedIn ? .unplug : .plugIn, fixture) {
                fixture.setCharger(!fixture.pluggedIn, at: changeAt)
            }
            run.completeHandedOver(fixture)
        }
        run.print(fixture)
    }

    /// The samples of a `due` run, by kind of event.
    struct DueRun {
        enum Kind { case plugIn, unplug, tick, completion }

        let appsComplete: Bool
        /// Tasks handed over and not yet completed by the benchmark's apps.
        var toComplete: [(app: AppID, run: TaskRunID)] = []

        var wall: Samples
        var cpu: Samples
        var plugIns: Samples
        var ticks: Samples
        var floor: Samples
        var first: (wall: Int, cpu: Int, effects: Int)?
        var handedOver = 0
        var runnable = 0

        init(capacity: Int, appsComplete: Bool) {
            self.appsComplete = appsComplete
            (wall, cpu, plugIns, ticks, floor) = (
                Samples(count: capacity), Samples(count: capacity), Samples(count: capacity),
                Samples(count: capacity), Samples(count: capacity)
            )
        }

        /// Times one event, then the floor at the same instant on the same power.
        mutating func time(_ kind: Kind, _ fixture: SchedulerFixture, _ event: () -> Void) {
            let wallStart = nanoseconds(CLOCK_MONOTONIC)
            let cpuStart = nanoseconds(CLOCK_THREAD_CPUTIME_ID)
            event()
            let cpuEnd = nanoseconds(CLOCK_THREAD_CPUTIME_ID)
            let wallEnd = nanoseconds(CLOCK_MONOTONIC)
            wall.add(wallEnd - wallStart)
            cpu.add(cpuEnd - cpuStart)
            switch kind {
            case .plugIn: plugIns.add(wallEnd - wallStart)
            case .tick: ticks.add(wallEnd - wallStart)
            case .unplug, .completion: break
            }
            if first == nil { first = (wallEnd - wallStart, cpuEnd - cpuStart, fixture.buffer.count) }
            for case .runTasks(let app, let runs) in fixture.buffer {
                handedOver += runs.count
                if appsComplete { toComplete += runs.map { (app, $0.id) } }
            }
            let floorStart = nanoseconds(CLOCK_MONOTONIC)
            runnable &+= fixture.fullScan(pluggedIn: fixture.pluggedIn)
            floor.add(nanoseconds(CLOCK_MONOTONIC) - floorStart)
        }

        /// The apps complete what was handed to them, one event per task, at the same instant.
        mutating func completeHandedOver(_ fixture: SchedulerFixture) {
            var next = 0
            while next < toComplete.count {
                let (app, run) = toComplete[next]
                next += 1
                time(.completion, fixture) { fixture.complete(app, run) }
            }
            toComplete.removeAll(keepingCapacity: true)
        }

        func print(_ fixture: SchedulerFixture) {
            if let first {
                Swift.print(
                    "first plug-in: wall \(micro(first.wall)), CPU \(micro(first.cpu)), \(first.effects) effects"
                )
            }
            Swift.print("core, every event (wall):   \(wall.summary)")
            Swift.print("core, every event (CPU):    \(cpu.summary)")
            Swift.print("core, plug-ins only (wall): \(plugIns.summary)")
            Swift.print("core, ticks only (wall):    \(ticks.summary)")
            if appsComplete { Swift.print("(the rest are the apps' completions of their tasks)") }
            Swift.print("floor, full scan (wall):    \(floor.summary)")
            let fallenDue = fixture.flat.count { ($0.earliestBegin ?? .zero) <= fixture.now }
            Swift.print(
                "by \(fixture.now): \(fallenDue) requests due, \(handedOver) handed to their apps "
                    + "(floor's runnable sum \(runnable))"
            )
        }
    }

    /// The first plug-in after the idle period, alone under callgrind's instrumentation.
    static func first(apps: Int, requestsPerApp: Int, idle: Duration) {
        let fixture = SchedulerFixture(apps: apps, requestsPerApp: requestsPerApp)
        fixture.idle(for: idle)
        let wallStart = nanoseconds(CLOCK_MONOTONIC)
        callgrind_control_start()
        fixture.toggleCharger(after: .zero)
        callgrind_control_stop()
        let wall = nanoseconds(CLOCK_MONOTONIC) - wallStart
        print(
            "SchedulerBench first: \(apps * requestsPerApp) pending requests across \(apps) apps, "
                + "the first plug-in after \(idle.components.seconds) s: \(micro(wall)), \(fixture.buffer.count) effects"
        )
    }

    static func nanoseconds(_ clock: clockid_t) -> Int {
        var time = timespec()
        clock_gettime(clock, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    static func micro(_ nanoseconds: Int) -> String {
        let tenths = (nanoseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10) µs"
    }

    /// Durations in nanoseconds, summarized by nearest-rank percentiles.
    struct Samples {
        private var values: [Int] = []

        init(count: Int) { values.reserveCapacity(count) }

        mutating func add(_ value: Int) { values.append(value) }

        var summary: String {
            guard !values.isEmpty else { return "no samples" }
            let sorted = values.sorted()
            func rank(_ fraction: Double) -> Int {
                sorted[max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
            }
            let mean = sorted.reduce(0, +) / sorted.count
            return "p50 \(micro(rank(0.5)))  p90 \(micro(rank(0.9)))  p99 \(micro(rank(0.99)))  "
                + "max \(micro(sorted.last!))  mean \(micro(mean))  (n \(sorted.count))"
        }
    }
}
