// Cost of one background-task begin+end pair, side by side with a floor and a peer.
//
// Every benchmark runs `benchmark.scaledIterations` (1,000) operations per sample, so the
// scaled wall-clock and malloc figures the tool prints (marked `*`) are per operation.
// See ../../../BENCHMARKS.md for the results and how to reproduce them.

import BackgroundExecution
import Benchmark
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time the process used, in nanoseconds. Unlike wall-clock time it does not count time the
/// benchmark spent preempted, which matters on a shared 2-core machine where other builds run.
func processCPUTime() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
}

/// Process CPU time per operation (scaled like wall clock), reported next to wall clock.
let cpuTime = BenchmarkMetric.custom("CPU time (ns)", polarity: .prefersSmaller, useScalingFactor: true)

extension Benchmark {
    /// Runs `body` and records the process CPU time it took as ``cpuTime``.
    func measuringCPU(_ body: () throws -> Void) rethrows {
        let start = processCPUTime()
        try body()
        measurement(cpuTime, processCPUTime() - start)
    }

    /// ``measuringCPU(_:)`` for async bodies.
    func measuringCPUAsync(_ body: () async throws -> Void) async rethrows {
        let start = processCPUTime()
        try await body()
        measurement(cpuTime, processCPUTime() - start)
    }
}

/// A logger that drops everything, so logging never shows up in the numbers.
let silentLogger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

/// The system the "ours" rows use: iOS numbers, the real clock, nothing written anywhere.
func makeApplication() -> UIApplication {
    let system = EmbeddedSystem(
        configuration: .init(
            app: "bench.app",
            policy: .iOS,
            clock: .continuous,
            terminationBehavior: .record,
            reportsDirectory: nil,
            printsReportsToStandardError: false,
            logger: silentLogger
        )
    )
    return UIApplication(connection: system)  // the app is launched and active after init
}

/// Holds the pure core and its reused effect buffer across samples of one benchmark.
final class CoreHarness: @unchecked Sendable {
    let app: AppID = "bench.app"
    var core = BackgroundSystem(policy: .iOS)
    var buffer: [Effect] = []
    let site = CallSite()

    init() {
        buffer.reserveCapacity(16)
        try! core.handle(.launch(app, .foreground), at: .zero, into: &buffer)
        try! core.handle(.activate(app), at: .zero, into: &buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, cpuTime],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    // 1. Floor: what any thread-safe "table of live tasks" must at least pay.
    let table = Mutex<[Int: String]>(
        {
            var dictionary: [Int: String] = [:]
            dictionary.reserveCapacity(1024)  // no growth inside the measurement
            return dictionary
        }()
    )
    Benchmark("1 floor: Mutex<[Int: String]> insert+remove") { benchmark in
        benchmark.measuringCPU {
            for k in benchmark.scaledIterations {
                table.withLock { $0[k] = "Upload" }  // short: a small string, stored inline
                blackHole(table.withLock { $0.removeValue(forKey: k) })
            }
        }
    }

    // 2. Ours, as app code calls it, with an expiration handler.
    let withHandler = makeApplication()
    Benchmark("2 ours: beginBackgroundTask(withName:) { } + endBackgroundTask") { benchmark in
        benchmark.measuringCPU {
            for _ in benchmark.scaledIterations {
                let id = withHandler.beginBackgroundTask(withName: "Upload") {}
                withHandler.endBackgroundTask(id)
                blackHole(id)
            }
        }
    }

    // 3. Ours, without an expiration handler.
    let noHandler = makeApplication()
    Benchmark("3 ours: beginBackgroundTask(withName:, nil) + endBackgroundTask") { benchmark in
        benchmark.measuringCPU {
            for _ in benchmark.scaledIterations {
                let id = noHandler.beginBackgroundTask(withName: "Upload", expirationHandler: nil)
                noHandler.endBackgroundTask(id)
                blackHole(id)
            }
        }
    }

    // 4. The pure core alone (BackgroundCore): no lock, no clock, no handler table, no
    //    protocol dispatch. The events are stamped with a fixed instant.
    let harness = CoreHarness()
    Benchmark("4 core, full event path: handle(.beginAssertion) + handle(.endAssertion)") { benchmark in
        let app = harness.app
        let site = harness.site
        benchmark.measuringCPU {
            for _ in benchmark.scaledIterations {
                harness.buffer.removeAll(keepingCapacity: true)
                let reply = try! harness.core.handle(
                    .beginAssertion(app, name: "Upload", origin: site, hasExpirationHandler: true),
                    at: .zero,
                    into: &harness.buffer
                )
                guard case .granted(let id) = reply else { fatalError("not granted") }
                harness.buffer.removeAll(keepingCapacity: true)
                try! harness.core.handle(.endAssertion(app, id), at: .zero, into: &harness.buffer)
                blackHole(id)
            }
        }
    }

    // 5. Peer: swift-service-lifecycle's withGracefulShutdownHandler enter+exit.
    //
    // In 2.13.0, outside a ServiceGroup (no `TaskLocals.gracefulShutdownManager`) the function
    // only runs the operation: no handler is registered, so timing it there would compare our
    // register+unregister against nothing (row 6 shows that no-op for reference). Row 5 runs
    // inside `testGracefulShutdown { }` from ServiceLifecycleTestKit, which binds a fresh
    // `GracefulShutdownManager` as ServiceGroup does for its services, so every call really
    // appends a handler under the manager's lock and removes it again. Creating the manager and
    // binding the task local happen before `startMeasurement()`, so only the enter+exit pairs
    // are measured.
    let fastHarness = CoreHarness()
    Benchmark("4b core fast path: beginAssertionInForeground + endAssertionInForeground") { benchmark in
        for _ in benchmark.scaledIterations {
            let id = fastHarness.core.beginAssertionInForeground(
                fastHarness.app,
                name: "Upload",
                origin: fastHarness.site,
                hasExpirationHandler: true,
                at: .zero
            )!
            blackHole(fastHarness.core.endAssertionInForeground(fastHarness.app, id, at: .zero))
        }
    }

    Benchmark("5 peer: withGracefulShutdownHandler (manager bound)") { benchmark async in
        await testGracefulShutdown { _ in
            benchmark.startMeasurement()
            await benchmark.measuringCPUAsync {
                for index in benchmark.scaledIterations {
                    await withGracefulShutdownHandler {
                        blackHole(index)
                    } onGracefulShutdown: {
                    }
                }
            }
            benchmark.stopMeasurement()
        }
    }

    // 6. Reference only: the same call with no manager bound, which registers nothing.
    Benchmark("6 peer, no ServiceGroup (no-op, reference)") { benchmark async in
        await benchmark.measuringCPUAsync {
            for index in benchmark.scaledIterations {
                await withGracefulShutdownHandler {
                    blackHole(index)
                } onGracefulShutdown: {
                }
            }
        }
    }
}
