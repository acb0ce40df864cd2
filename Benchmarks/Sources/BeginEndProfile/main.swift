// A plain executable running one row of the BeginEnd benchmark N times, for profilers that want a
// small process of their own (valgrind's callgrind, heap counters) rather than the benchmark
// harness. Not a benchmark target: the benchmark plugin only runs targets under Benchmarks/.
//
//     swift build -c release --product BeginEndProfile
//     valgrind --tool=callgrind .build/release/BeginEndProfile handler 100000
//
// Rows: floor | handler | nil | core | coreFast (as in BeginEnd.swift). Instructions per operation are
// (Ir at N) - (Ir at 0), divided by N. Each row is a non-inlined function over locals, so the
// loop compiles as it does inside a benchmark closure.

import BackgroundExecution
import Logging
import Synchronization

@inline(never) func sink<T>(_ value: T) { withExtendedLifetime(value) {} }

@inline(never) func floor(_ count: Int) {
    let table = Mutex<[Int: String]>(
        {
            var dictionary: [Int: String] = [:]
            dictionary.reserveCapacity(1024)
            return dictionary
        }()
    )
    for index in 0..<count {
        let key = index % 1000  // as in the benchmark, where keys run 0..<1000 per sample
        table.withLock { $0[key] = "Upload" }
        sink(table.withLock { $0.removeValue(forKey: key) })
    }
}

@inline(never) func core(_ count: Int) {
    let app: AppID = "bench.app"
    var core = BackgroundSystem(policy: .iOS)
    var buffer: [Effect] = []
    try! core.handle(.launch(app, .foreground), at: .zero, into: &buffer)
    try! core.handle(.activate(app), at: .zero, into: &buffer)
    let site = CallSite()
    for _ in 0..<count {
        buffer.removeAll(keepingCapacity: true)
        let reply = try! core.handle(
            .beginAssertion(app, name: "Upload", origin: site, hasExpirationHandler: true),
            at: .zero,
            into: &buffer
        )
        guard case .granted(let id) = reply else { fatalError("not granted") }
        buffer.removeAll(keepingCapacity: true)
        try! core.handle(.endAssertion(app, id), at: .zero, into: &buffer)
        sink(id)
    }
}

@inline(never) func coreFast(_ count: Int) {
    let app: AppID = "bench.app"
    var core = BackgroundSystem(policy: .iOS)
    try! core.handle(.launch(app, .foreground), at: .zero)
    try! core.handle(.activate(app), at: .zero)
    let site = CallSite()
    for _ in 0..<count {
        let id = core.beginAssertionInForeground(
            app,
            name: "Upload",
            origin: site,
            hasExpirationHandler: true,
            at: .zero
        )!
        sink(core.endAssertionInForeground(app, id, at: .zero))
    }
}

@inline(never) func ours(_ count: Int, handler: Bool) {
    let system = EmbeddedSystem(
        configuration: .init(
            app: "bench.app",
            policy: .iOS,
            clock: .continuous,
            terminationBehavior: .record,
            reportsDirectory: nil,
            printsReportsToStandardError: false,
            logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    )
    let application = UIApplication(connection: system)
    if handler {
        for _ in 0..<count {
            let id = application.beginBackgroundTask(withName: "Upload") {}
            application.endBackgroundTask(id)
            sink(id)
        }
    } else {
        for _ in 0..<count {
            let id = application.beginBackgroundTask(withName: "Upload", expirationHandler: nil)
            application.endBackgroundTask(id)
            sink(id)
        }
    }
}

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
switch arguments.first ?? "handler" {
case "floor": floor(count)
case "core": core(count)
case "coreFast": coreFast(count)
case "handler": ours(count, handler: true)
case "nil": ours(count, handler: false)
default: print("usage: BeginEndProfile floor|handler|nil|core|coreFast [count]")
}
