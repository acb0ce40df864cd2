import BackgroundCore
import BackgroundStore
import BackgroundTransfers
import Foundation
import Synchronization
import TransferTestServer

// Transfers side by side with curl, on one loopback server (BENCHMARKS.md has the commands).
//
//   TransferBench serve <port> <big-bytes> <small-count>   the server: /big, /mib (1 MiB), /small/<i> (1 KiB), /stall
//   TransferBench download <url> <dir>                     one download through EmbeddedTransfers
//   TransferBench many <url-list-file> <dir> <connections> every URL of the list at once
//   TransferBench resume <dir>                             the transfers stored in <dir> (after a kill)
//
// A client prints one line: seconds, bytes, and the peak resident memory (VmHWM) in KiB. The
// server prints `counters <requests> <bytes-sent> <last-range-start>` for /big whenever they change (every 200 ms),
// so that a script can read the bytes re-sent after a kill.
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: TransferBench serve|download|many …\n".utf8))
    exit(64)
}

/// The peak resident set of this process, in KiB.
func peakResidentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

/// Runs downloads through an embedded service and waits for all of them (with no URL, for the
/// transfers stored in `directory` by an earlier, killed run).
func download(_ urls: [String], directory: String, connections: Int) async throws -> (Double, Int64) {
    let app = AppID("bench.transfers")
    let transfers = EmbeddedTransfers(
        configuration: .init(
            app: app,
            container: try TransferContainer(root: directory + "/Container"),
            store: try BackgroundStore(path: directory + "/store.sqlite")
        )
    )
    let remaining = Mutex(urls.count)
    let bytes = Mutex<Int64>(0)
    let (done, continuation) = AsyncStream<Void>.makeStream()
    let start = ContinuousClock.now
    let end = Mutex<ContinuousClock.Instant?>(nil)
    let stored = transfers.attach(
        TransferSessionOptions(app: app, session: "bench", maximumConnectionsPerHost: connections)
    ) { event in
        guard case .completed(let transfer, _, _) = event else { return }
        if let error = transfer.outcome?.errorMessage {
            FileHandle.standardError.write(Data("TransferBench: \(transfer.url): \(error)\n".utf8))
        }
        bytes.withLock { $0 += transfer.bytesDone }
        // The clock stops when the last file is handed over, as curl's stops when its file is
        // written: removing it afterwards (`delivered`, what an app's move leaves) is not timed.
        let last = remaining.withLock { value in
            value -= 1
            return value == 0
        }
        if last { end.withLock { $0 = ContinuousClock.now } }
        transfers.delivered(app: app, session: "bench", task: transfer.task)
        if last { continuation.finish() }
    }
    if urls.isEmpty {
        remaining.withLock { $0 = stored.count }
        if stored.isEmpty { continuation.finish() }
    }
    for url in urls {
        let task = transfers.reserveTaskIdentifier(app: app, session: "bench")
        let order = TransferCheckpoint(app: app, session: "bench", task: task, kind: .download, method: "GET", url: url)
        transfers.submit(TransferOrder(transfer: order))
    }
    for await _ in done {}
    let elapsed = (end.withLock { $0 } ?? ContinuousClock.now) - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (seconds, bytes.withLock { $0 })
}

switch arguments[1] {
case "serve":
    let server = try await LoopbackServer.start(port: Int(arguments[2]) ?? 0)
    server.set("/big", LoopbackRoute(size: Int64(arguments[3]) ?? (1 << 30)))
    server.set("/mib", LoopbackRoute(size: 1 << 20))
    for index in 0..<(Int(arguments.count > 4 ? arguments[4] : "0") ?? 0) {
        server.set("/small/\(index)", LoopbackRoute(size: 1024))
    }
    var stalled = LoopbackRoute(size: Int64(arguments[3]) ?? (1 << 30))
    stalled.stallAtOffset = 64 << 20
    server.set("/stall", stalled)
    FileHandle.standardOutput.write(Data("listening \(server.port)\n".utf8))
    var last = (requests: -1, bytes: Int64(-1))
    while true {
        try await Task.sleep(for: .milliseconds(200))
        let counters = server.counters("/big")
        if (counters.requests, counters.bytesSent) != (last.requests, last.bytes) {
            last = (counters.requests, counters.bytesSent)
            let line = "counters \(counters.requests) \(counters.bytesSent) \(counters.rangeStarts.last ?? -1)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
case "download":
    let (seconds, bytes) = try await download([arguments[2]], directory: arguments[3], connections: 6)
    print(String(format: "seconds %.3f bytes %lld peak-rss-kib %d", seconds, bytes, peakResidentKiB()))
case "many":
    let urls = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n").map(String.init)
    let (seconds, bytes) = try await download(urls, directory: arguments[3], connections: Int(arguments[4]) ?? 6)
    print(String(format: "seconds %.3f bytes %lld peak-rss-kib %d", seconds, bytes, peakResidentKiB()))
case "resume":
    let (seconds, bytes) = try await download([], directory: arguments[2], connections: 6)
    print(String(format: "seconds %.3f bytes %lld peak-rss-kib %d", seconds, bytes, peakResidentKiB()))
default:
    FileHandle.standardError.write(Data("TransferBench: unknown command \(arguments[1])\n".utf8))
    exit(64)
}
