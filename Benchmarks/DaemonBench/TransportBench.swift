// DaemonBench transport: begin+end of a background task through the app's own transport to
// backgroundd (`DaemonConnection`, the one `UIApplication.shared` uses under the daemon), beside
// a raw Unix-socket echo of the same frames, in one run.
//
// A begin is decided app-side from the pushed grant state (docs/core-contract.md, "No round trip
// for the common case") and sent one way, and so is the end: nothing comes back, so what the
// app pays for a pair is the two calls. Two measures:
//
// 1. per pair, interleaved with the echo (p50, p99): the app's `beginAssertion` + `endAssertion`,
//    then (not timed) one question, so the daemon has applied the pair and is idle again, then
//    the same two frames written to an echo thread and read back (timed): each is measured on a
//    machine where the other is not running;
// 2. sustained: `--pairs` pairs back to back through the transport, then one question (a round
//    trip the daemon answers after everything sent before it), so the time is until the daemon
//    has applied every pair (its NIO thread, the engine's lock, the core, the journal); beside it
//    the same number of echo pairs back to back (round trips: a latency yardstick), and the same
//    frames echoed pipelined, 32 pairs written before their echoes are read (the throughput
//    yardstick, issue 28). If the daemon were slower than the app, the socket's buffer would
//    fill and the app's writes would wait: the sustained figure includes that.
//
// `--sustained-only` runs measure 2 alone, for instruction counts: callgrind with
// `--separate-threads=yes` over two runs of different `--pairs` gives the daemon's NIO thread's
// instructions per pair by difference.

import BackgroundCore
import BackgroundDaemon
import BackgroundExecution
import BackgroundProtocol
import BackgroundStore
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

func transport() async throws {
    try await withBenchDaemon("daemonbench-tr") { app, engine, paths in try transport(app, engine, paths) }
}

func transport(_ app: AppID, _ engine: DaemonEngine, _ paths: DaemonPaths) throws {
    let pairs = option("--pairs", 20_000)
    let warmUp = 1000
    // The app's transport, connected as an app the user started: it is in the foreground.
    let connection = DaemonConnection(
        configuration: .init(
            app: app,
            endpoint: .socket(path: paths.socket),
            launchCompletion: .explicit,
            logger: quiet
        )
    )
    connection.finishLaunching()
    // A question starts the connection's reader thread (pushes are read as they come) and
    // answers after the launch's end was applied.
    _ = connection.pendingTaskRequests()
    guard connection.lifecycleState.isForeground else {
        fatalError("not in the foreground: \(connection.lifecycleState)")
    }
    let echo = EchoPair()
    let (beginFrame, endFrame) = try transportFrames(app)
    let handler: @MainActor @Sendable () -> Void = {}
    func appPair() {
        guard let id = connection.beginAssertion(named: "Upload", at: CallSite(), expirationHandler: handler) else {
            fatalError("not granted")
        }
        connection.endAssertion(id)
    }
    func echoPair() throws {
        try echo.client.write(beginFrame)
        _ = try echo.client.frame()
        try echo.client.write(endFrame)
        _ = try echo.client.frame()
    }
    // 1. Per pair, interleaved.
    var appTimes: [UInt64] = []
    var echoTimes: [UInt64] = []
    // `--sustained-only` leaves out the per-pair row (and its questions), so that a count of
    // instructions (callgrind) over two runs of different lengths is the pairs' alone.
    let perPairRow = !arguments.contains("--sustained-only")
    for index in 0..<(perPairRow ? pairs + warmUp : 0) {
        let start = nanoseconds()
        appPair()
        let appTime = nanoseconds() - start
        _ = connection.pendingTaskRequests()  // applied: the daemon does not run beside the echo
        let echoStart = nanoseconds()
        try echoPair()
        let echoTime = nanoseconds() - echoStart
        if index >= warmUp {
            appTimes.append(appTime)
            echoTimes.append(echoTime)
        }
    }
    // 2. Sustained: the transport until the daemon applied every pair, then the echo.
    let sustainedStart = nanoseconds()
    for _ in 0..<pairs { appPair() }
    _ = connection.pendingTaskRequests()
    let sustained = nanoseconds() - sustainedStart
    let echoStart = nanoseconds()
    for _ in 0..<pairs { try echoPair() }
    let echoSustained = nanoseconds() - echoStart
    // The throughput yardstick: the same frames echoed pipelined, a window of 32 pairs written
    // before their echoes are read (the app's transport does not wait either).
    let window = 32
    let pipelinedStart = nanoseconds()
    var sent = 0
    while sent < pairs {
        let batch = min(window, pairs - sent)
        for _ in 0..<batch {
            try echo.client.write(beginFrame)
            try echo.client.write(endFrame)
        }
        for _ in 0..<(2 * batch) { _ = try echo.client.frame() }
        sent += batch
    }
    let pipelined = nanoseconds() - pipelinedStart
    let held = engine.answer(.assertions(app)).json
    let perPair = Double(sustained) / 1e3 / Double(pairs)
    let echoPerPair = Double(echoSustained) / 1e3 / Double(pairs)
    let pipelinedPerPair = Double(pipelined) / 1e3 / Double(pairs)
    print(
        "pairs \(pairs) (+\(warmUp) warm-up), begin frame \(beginFrame.count) bytes, end frame \(endFrame.count) bytes"
    )
    if perPairRow {
        appTimes.sort()
        echoTimes.sort()
        let a50 = percentile(appTimes, 0.5)
        let a99 = percentile(appTimes, 0.99)
        let e50 = percentile(echoTimes, 0.5)
        let e99 = percentile(echoTimes, 0.99)
        print(String(format: "app transport begin+end (one way, no round trip)  p50 %.1f µs  p99 %.1f µs", a50, a99))
        print(String(format: "raw echo round trips, same frames                 p50 %.1f µs  p99 %.1f µs", e50, e99))
        print(String(format: "ratio  p50 %.2f×  p99 %.2f×", a50 / e50, a99 / e99))
    }
    print(
        String(
            format: "sustained against the pipelined echo (window %d pairs): %.1f µs a pair; ratio %.2f×",
            window,
            pipelinedPerPair,
            perPair / pipelinedPerPair
        )
    )
    print(
        String(
            format:
                "sustained, %d pairs until the daemon applied them all %.1f µs a pair; echo %.1f µs a pair; ratio %.2f×",
            pairs,
            perPair,
            echoPerPair,
            perPair / echoPerPair
        )
    )
    print("outstanding assertions at the end: \(held.contains("\"assertions\":[]") ? "none" : held)")
    withExtendedLifetime(connection) {}
}

/// The frames the transport sends for one pair (a begin with an expiration handler, an end),
/// for the echo.
private func transportFrames(_ app: AppID) throws -> ([UInt8], [UInt8]) {
    let begun = Event.assertionBegun(
        app,
        AssertionID(rawValue: 1),
        name: "Upload",
        origin: CallSite(),
        hasExpirationHandler: true
    )
    let begin = try Frame.encode(ProtocolCodec.encode(DaemonRequest.app(.oneWay(begun))))
    let end = try Frame.encode(
        ProtocolCodec.encode(DaemonRequest.app(.oneWay(.endAssertion(app, AssertionID(rawValue: 1)))))
    )
    return (begin, end)
}

/// A socket pair with a thread that writes back what it reads on one end.
final class EchoPair {
    let client: Connection

    init() {
        var ends: [Int32] = [-1, -1]
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends)
        let echoFD = ends[1]
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(echoFD, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                _ = buffer.withUnsafeBytes { Glibc.write(echoFD, $0.baseAddress, count) }
            }
        }
        client = Connection(fd: ends[0])
    }
}
