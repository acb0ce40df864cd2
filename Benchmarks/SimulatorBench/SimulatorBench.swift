// SimulatorBench: how fast the simulator runs a month of a busy phone, and how fast it fuzzes.
//
// A plain executable of the Benchmarks package. From Benchmarks/:
//
//     swift run -c release SimulatorBench [rounds, default 5]
//     swift run -c release SimulatorBench --write-scenario scenarios/month-20-apps.json
//
// Rows, measured side by side in one run:
//   (a) the scenario "30 days, 20 apps" (built below; the same file is in scenarios/) run by
//       ScenarioRun with the invariants checked after every event: wall time, and simulated
//       events per second (the simulator's log entries, and the system's own events);
//   (b) the same run without the invariant checks;
//   (c) the floor: the system events of (a), recorded, replayed into a bare BackgroundSystem
//       (the pure core, no apps, no device, no log): what any simulator must at least spend;
//   (d) fuzzing: Fuzzer().check(seed:) over 200 seeds, seeds per second.
// Target: (a) under 1 s.
//
// More modes:
//
//     swift run -c release SimulatorBench --growth 20,100,1000 [rounds, default 3]
//         the same month with N apps (the apps are the same kind of app, N of them): rows (a),
//         (b) and (c) per app count, and the cost per system event;
//     swift run -c release SimulatorBench --mix 20,1000 [rounds, default 3]
//         the core's cost per event by kind of event, and the month's mix of kinds, per app count;
//     swift run -c release SimulatorBench --memory 50000 [report every, default 5000] [first seed, default 0]
//         fuzz N seeds in this one process, printing the resident set size (VmRSS) as it goes:
//         flat when a finished run leaves nothing behind.

import BackgroundSimulator
import CallgrindControl
import Foundation

@main
struct SimulatorBench {
    static func main() throws {
        // Synchronous, on the main thread: valgrind cannot follow an async main (dispatch parks
        // the main thread in sigsuspend), and the simulator needs nothing asynchronous.
        try MainActor.assumeIsolated { try run(Array(CommandLine.arguments.dropFirst())) }
    }

    @MainActor
    static func run(_ arguments: [String]) throws {
        if arguments.first == "--write-scenario", arguments.count == 2 {
            try month().jsonData().write(to: URL(fileURLWithPath: arguments[1]))
            print("written: \(arguments[1])")
            return
        }
        if arguments.first == "--growth", arguments.count >= 2 {
            let counts = arguments[1].split(separator: ",").compactMap { Int($0) }
            let rounds = arguments.dropFirst(2).first.flatMap(Int.init) ?? 3
            try growth(counts, rounds: rounds)
            return
        }
        if arguments.first == "--once", arguments.count >= 3, let count = Int(arguments[1]) {
            try once(apps: count, row: arguments[2])
            return
        }
        if arguments.first == "--mix", arguments.count >= 2 {
            let counts = arguments[1].split(separator: ",").compactMap { Int($0) }
            let rounds = arguments.dropFirst(2).first.flatMap(Int.init) ?? 3
            try mix(counts, rounds: rounds)
            return
        }
        if arguments.first == "--memory", arguments.count >= 2, let seeds = UInt64(arguments[1]) {
            let every = arguments.dropFirst(2).first.flatMap(UInt64.init) ?? 5000
            let first = arguments.dropFirst(3).first.flatMap(UInt64.init) ?? 0
            memory(seeds: seeds, every: every, first: first)
            return
        }
        let rounds = arguments.first.flatMap(Int.init) ?? 5
        try measure(rounds: rounds)
    }

    /// Fuzzes seeds first..<first + seeds in this process and prints the resident set size every
    /// `every` seeds.
    @MainActor
    static func memory(seeds: UInt64, every: UInt64, first: UInt64) {
        let fuzzer = Fuzzer()
        let started = ContinuousClock.now
        print("seeds\tVmRSS (KiB)\tseconds")
        print("0\t\(residentKiB())\t0")
        var findings = 0
        for done in 0..<seeds {
            if fuzzer.check(seed: first + done) != nil { findings += 1 }
            if (done + 1) % every == 0 {
                let elapsed = (ContinuousClock.now - started).seconds
                print("\(done + 1)\t\(residentKiB())\t\(String(format: "%.1f", elapsed))")
            }
        }
        print("findings: \(findings)")
    }

    /// The process's resident set size, from /proc/self/status.
    static func residentKiB() -> Int { statusKiB("VmRSS:") }

    /// The largest resident set size the process has had (VmHWM): with app counts in increasing
    /// order, what the largest run so far needed at its peak.
    static func peakResidentKiB() -> Int { statusKiB("VmHWM:") }

    static func statusKiB(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    /// The month with each app count: the whole simulator with and without invariant checks, the
    /// core replay floor, and the cost per system event, side by side.
    @MainActor
    static func growth(_ counts: [Int], rounds: Int) throws {
        print("CPU time (CLOCK_PROCESS_CPUTIME_ID), best of \(rounds)")
        print(
            "| apps | system events | (a) checked | (b) unchecked | (c) core replay | (a) µs/event | (c) µs/event "
                + "| apps visited/event | peak RSS so far |"
        )
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for count in counts {
            let scenario = month(apps: count)
            var checked: [Double] = []
            var unchecked: [Double] = []
            var replay: [Double] = []
            var events = 0
            var visits = 0
            for _ in 1...rounds {
                var started = cpuSeconds()
                let run = try ScenarioRun(scenario)
                checked.append(cpuSeconds() - started)
                precondition(run.passed, "\(count) apps: \(run.failures) \(run.simulator.violations.prefix(3))")
                started = cpuSeconds()
                _ = try ScenarioRun(scenario, checksInvariants: false)
                unchecked.append(cpuSeconds() - started)
                let recorded = try ScenarioRun(scenario, checksInvariants: false, recordSystemEvents: true).simulator
                    .systemEvents
                events = recorded.count
                let replayRun = replayedCountingVisits(recorded)
                replay.append(replayRun.seconds)
                visits = replayRun.visits
            }
            let a = checked.min()!
            let c = replay.min()!
            print(
                "| \(count) | \(events) | \(ms(a)) | \(ms(unchecked.min()!)) | \(ms(c)) | "
                    + "\(String(format: "%.2f", a / Double(events) * 1e6)) | \(String(format: "%.2f", c / Double(events) * 1e6)) | "
                    + "\(String(format: "%.2f", Double(visits) / Double(events))) | \(peakResidentKiB() / 1024) MB |"
            )
        }
    }

    /// One run of the month with `count` apps, for a profiler (callgrind): `checked`, `unchecked`,
    /// or `replay` (the core alone: the run's system events are recorded first, unchecked).
    @MainActor
    static func once(apps count: Int, row: String) throws {
        let scenario = month(apps: count)
        let started = cpuSeconds()
        switch row {
        case "checked":
            let run = try ScenarioRun(scenario)
            precondition(run.passed, "\(count) apps: \(run.failures) \(run.simulator.violations.prefix(3))")
            print(
                "\(count) apps, checked: \(run.simulator.systemEventCount) system events, \(ms(cpuSeconds() - started)) CPU"
            )
        case "unchecked":
            let run = try ScenarioRun(scenario, checksInvariants: false)
            print(
                "\(count) apps, unchecked: \(run.simulator.systemEventCount) system events, \(ms(cpuSeconds() - started)) CPU"
            )
        case "replay":
            let recorded = try ScenarioRun(scenario, checksInvariants: false, recordSystemEvents: true).simulator
                .systemEvents
            // Under `valgrind --tool=callgrind --instr-atstart=no`, only the replay is instrumented.
            callgrind_control_start()
            let seconds = replayed(recorded)
            callgrind_control_stop()
            print("\(count) apps, core replay: \(recorded.count) system events, \(ms(seconds))")
        default:
            print("--once N checked|unchecked|replay")
        }
    }

    /// Replays recorded system events into a bare core; returns the CPU seconds it took.
    static func replayed(_ recorded: [(at: Instant, event: Event)]) -> Double {
        replayedCountingVisits(recorded).seconds
    }

    /// Replays recorded system events into a bare core; returns the CPU seconds it took and the
    /// apps the core looked at (``BackgroundSystem/appsVisited``), a count that load cannot skew.
    static func replayedCountingVisits(_ recorded: [(at: Instant, event: Event)]) -> (seconds: Double, visits: Int) {
        let started = cpuSeconds()
        var core = BackgroundSystem(policy: .iOS, device: DeviceConditions())
        var effects: [Effect] = []
        for (at, event) in recorded {  // the month has no reboot: one system throughout
            effects.removeAll(keepingCapacity: true)
            _ = try? core.handle(event, at: at, into: &effects)
        }
        return (cpuSeconds() - started, core.appsVisited)
    }

    /// The core's cost per event by kind of event, with each app count: which kinds of event the
    /// month is made of (the mix changes with the number of apps) and what each kind costs. Each
    /// `handle` is timed on the monotonic clock (a vDSO read, tens of ns, the same for every kind);
    /// a kind's cost is the best of `rounds` replays. The last line weighs each count's costs by
    /// the first count's mix: the growth of the cost per event with the mix held fixed.
    @MainActor
    static func mix(_ counts: [Int], rounds: Int) throws {
        var mixes: [Int: [String: Int]] = [:]
        var costs: [Int: [String: Double]] = [:]
        var kinds: Set<String> = []
        for count in counts {
            let recorded = try ScenarioRun(month(apps: count), checksInvariants: false, recordSystemEvents: true)
                .simulator.systemEvents
            let names = recorded.map { kind(of: $0.event) }
            var mix: [String: Int] = [:]
            for name in names { mix[name, default: 0] += 1 }
            var best: [String: Double] = [:]
            for _ in 1...rounds {
                var total: [String: Double] = [:]
                var core = BackgroundSystem(policy: .iOS, device: DeviceConditions())
                var effects: [Effect] = []
                for (index, (at, event)) in recorded.enumerated() {
                    effects.removeAll(keepingCapacity: true)
                    let started = ContinuousClock.now
                    _ = try? core.handle(event, at: at, into: &effects)
                    total[names[index], default: 0] += (ContinuousClock.now - started).seconds
                }
                for (name, seconds) in total { best[name] = min(best[name] ?? .infinity, seconds) }
            }
            mixes[count] = mix
            costs[count] = best
            kinds.formUnion(mix.keys)
        }
        let header = counts.map { "\($0) apps: share | µs/event" }.joined(separator: " | ")
        print("| kind of event | \(header) |")
        print("| --- |" + String(repeating: " ---: | ---: |", count: counts.count))
        let ordered = kinds.sorted { (mixes[counts[0]]?[$0] ?? 0, $1) > (mixes[counts[0]]?[$1] ?? 0, $0) }
        for name in ordered {
            let cells = counts.map { count -> String in
                let events = mixes[count]?[name] ?? 0
                let total = mixes[count]!.values.reduce(0, +)
                let share = String(format: "%.1f %%", Double(events) / Double(total) * 100)
                let cost = events == 0 ? "" : String(format: "%.2f", costs[count]![name]! / Double(events) * 1e6)
                return "\(share) | \(cost)"
            }
            print("| \(name) | \(cells.joined(separator: " | ")) |")
        }
        let base = mixes[counts[0]]!
        let baseTotal = Double(base.values.reduce(0, +))
        let rows = counts.map { count -> String in
            let events = Double(mixes[count]!.values.reduce(0, +))
            let actual = costs[count]!.values.reduce(0, +) / events * 1e6
            // Each kind's cost per event at this count, weighed by the first count's mix.
            var weighed = 0.0
            for (name, n) in base {
                guard let kindEvents = mixes[count]?[name], kindEvents > 0, let cost = costs[count]?[name] else {
                    continue
                }
                weighed += Double(n) / baseTotal * cost / Double(kindEvents)
            }
            return "\(count) apps: \(String(format: "%.2f", actual)) µs/event (own mix), "
                + "\(String(format: "%.2f", weighed * 1e6)) µs/event (\(counts[0]) apps' mix)"
        }
        for row in rows { print(row) }
    }

    /// The name of an event's case, for the mix.
    static func kind(of event: Event) -> String {
        let text = "\(event)"
        return String(text.prefix { $0 != "(" })
    }

    /// The CPU time this process has used, in seconds (CLOCK_PROCESS_CPUTIME_ID): time spent
    /// preempted by other work on a loaded machine does not count.
    static func cpuSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    @MainActor
    static func measure(rounds: Int) throws {
        let scenario = month()
        print("scenario: \(scenario.name): \(scenario.apps.count) apps, \(scenario.timeline.count) timeline steps")
        var checked: [Double] = []
        var unchecked: [Double] = []
        var replay: [Double] = []
        var logEvents = 0
        var systemEvents = 0
        for round in 1...rounds {
            var started = ContinuousClock.now
            let run = try ScenarioRun(scenario)
            checked.append((ContinuousClock.now - started).seconds)
            logEvents = run.simulator.events.count
            systemEvents = run.simulator.systemEventCount

            started = ContinuousClock.now
            _ = try ScenarioRun(scenario, checksInvariants: false)
            unchecked.append((ContinuousClock.now - started).seconds)

            let recorded = try ScenarioRun(scenario, checksInvariants: false, recordSystemEvents: true).simulator
                .systemEvents
            started = ContinuousClock.now
            var core = BackgroundSystem(policy: .iOS, device: DeviceConditions())
            var effects: [Effect] = []
            for (at, event) in recorded {  // the month has no reboot: one system throughout
                effects.removeAll(keepingCapacity: true)
                _ = try? core.handle(event, at: at, into: &effects)
            }
            replay.append((ContinuousClock.now - started).seconds)
            print(
                "round \(round): checked \(ms(checked.last!)), unchecked \(ms(unchecked.last!)), "
                    + "core replay \(ms(replay.last!)) (\(recorded.count) system events)"
            )
            precondition(run.passed, "the month scenario failed: \(run.failures) \(run.simulator.violations.prefix(3))")
        }
        let best = checked.min()!
        print("")
        print("30 days × 20 apps, best of \(rounds) (median):")
        print("  (a) with invariants:    \(ms(best)) (\(ms(median(checked))))")
        print(
            "      \(Int(Double(logEvents) / best)) logged events/s (\(logEvents) events), \(Int(Double(systemEvents) / best)) system events/s (\(systemEvents))"
        )
        print("  (b) without invariants: \(ms(unchecked.min()!)) (\(ms(median(unchecked))))")
        print("  (c) floor, core replay: \(ms(replay.min()!)) (\(ms(median(replay))))")
        print(
            "      ratio (a)/(c): \(String(format: "%.1f", best / replay.min()!))×, (b)/(c): \(String(format: "%.1f", unchecked.min()! / replay.min()!))×"
        )

        let fuzzer = Fuzzer()
        let started = ContinuousClock.now
        var findings = 0
        for seed in UInt64(0)..<200 where fuzzer.check(seed: seed) != nil { findings += 1 }
        let elapsed = (ContinuousClock.now - started).seconds
        print("  (d) fuzzing: 200 seeds in \(ms(elapsed)): \(Int(200 / elapsed)) seeds/s (\(findings) findings)")
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// Thirty days of a phone with 20 apps: each is opened once or twice a day for a quarter of an
    /// hour (jittered from the seed), submits a refresh and a clean-up when it leaves, saves for
    /// 10 s in the background; the phone is locked between uses, charges at night, rides a
    /// cellular commute, and sits idle overnight.
    @MainActor
    static func month(apps appCount: Int = 20) -> Scenario {
        var apps: [Scenario.App] = []
        var timeline: [Scenario.Step] = [
            .init(at: .clock(day: 1, time: .init(hour: 7, minute: 0)), repeat: .daily, event: .device(.unplug)),
            .init(
                at: .clock(day: 1, time: .init(hour: 8, minute: 0)),
                repeat: .daily,
                event: .device(.change(.init(network: .cellular)))
            ),
            .init(
                at: .clock(day: 1, time: .init(hour: 8, minute: 40)),
                repeat: .daily,
                event: .device(.change(.init(network: .wifi)))
            ),
            .init(at: .clock(day: 1, time: .init(hour: 23, minute: 0)), repeat: .daily, event: .user(.lock)),
            .init(at: .clock(day: 1, time: .init(hour: 23, minute: 30)), repeat: .daily, event: .device(.plugIn)),
        ]
        for index in 0..<appCount {
            let id = "com.example.app\(index)"
            let refresh = id + ".refresh"
            let cleanup = id + ".cleanup"
            apps.append(
                Scenario.App(
                    id: id,
                    manifest: [
                        "BGTaskSchedulerPermittedIdentifiers": .array([.string(refresh), .string(cleanup)]),
                        "UIBackgroundModes": .array(["fetch", "processing"]),
                    ],
                    onLaunch: [.register(refresh), .register(cleanup)],
                    onEnterBackground: [
                        .submit(.init(identifier: refresh, kind: .refresh, earliestBegin: .seconds(3600))),
                        .submit(.init(identifier: cleanup, kind: .processing(requiresExternalPower: true))),
                        .beginBackgroundTask(.init(name: "Save", end: .after(.seconds(10)))),
                    ],
                    tasks: [
                        .init(identifier: cleanup, behaviour: .init(work: .seconds(180))),
                        .init(
                            identifier: refresh,
                            behaviour: .init(
                                work: .seconds(8),
                                completion: .complete(
                                    success: true,
                                    then: [
                                        .submit(
                                            .init(identifier: refresh, kind: .refresh, earliestBegin: .seconds(3600))
                                        )
                                    ]
                                )
                            )
                        ),
                    ]
                )
            )
            for hour in index % 3 == 0 ? [9, 19] : [12 + index % 8] {
                let minute = (index * 7) % 40
                timeline.append(
                    .init(
                        at: .clock(day: 1, time: .init(hour: hour, minute: minute)),
                        repeat: .daily,
                        jitter: .seconds(600),
                        event: .user(.open(app: id))
                    )
                )
                timeline.append(
                    .init(
                        at: .clock(day: 1, time: .init(hour: hour, minute: minute + 15)),
                        repeat: .daily,
                        event: .user(.home)
                    )
                )
                timeline.append(
                    .init(
                        at: .clock(day: 1, time: .init(hour: hour, minute: minute + 16)),
                        repeat: .daily,
                        event: .user(.lock)
                    )
                )
            }
        }
        return Scenario(
            name: "30 days, \(appCount) apps",
            description: "The simulator benchmark: a month of a busy phone (Benchmarks/SimulatorBench).",
            seed: 1,
            duration: .seconds(30 * 86_400),
            device: .init(batteryLevel: 1, locked: true),
            apps: apps,
            timeline: timeline
        )
    }
}
