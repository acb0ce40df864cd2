// The time to recompute the runnable set after a device condition changes (the charger is
// plugged in), with 100,000 pending processing requests across 10,000 apps.
//
// Side by side in one run: the core's condition-indexed queue, and the floor it replaces: a
// full scan of every pending request checking whether it may run now. Each operation is one
// `.setDevice` event (plugged in, then unplugged on the next operation), so what is measured is
// the whole event: releasing due requests from the groups the change opened, examining their
// apps, delivering what may run, and computing the next wake-up.

// The clock moves 1 ms per operation, so no request falls due after the first plug-in:
// SchedulerBench (`due`) measures events at which requests do fall due.

import Benchmark
import SchedulerFixture

/// The floor's own charger: it alternates as the core's does.
final class FloorCharger: @unchecked Sendable {
    var pluggedIn = false
    func toggle() -> Bool {
        pluggedIn.toggle()
        return pluggedIn
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        maxDuration: .seconds(5),
        maxIterations: 5_000
    )

    let fixture = SchedulerFixture()
    let floorCharger = FloorCharger()

    Benchmark("Charger plugged in: condition-indexed queue (100k requests, 10k apps)") { benchmark in
        for _ in benchmark.scaledIterations {
            fixture.toggleCharger(after: .milliseconds(1))
            blackHole(fixture.buffer.count)
        }
    }

    Benchmark("Charger plugged in: floor, full scan of 100k requests") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(fixture.fullScan(pluggedIn: floorCharger.toggle()))
        }
    }
}
