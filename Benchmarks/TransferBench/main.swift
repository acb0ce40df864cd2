import BackgroundCore
import BackgroundStore
import BackgroundTransfers
import Foundation
import Synchronization
import TransferTestServer

// Transfers side by side with curl, on one loopback server (BENCHMARKS.md has the commands).
//
//   TransferBench serve <port> <big-bytes> <small-count>   the server: /big, /small/<i> (1 KiB), /stall
//   TransferBench download <url> <dir>                     one download through EmbeddedTransfers
//   TransferBench many <url-list-file> <dir> <connections> every URL of the list at once
//
// A client prints one line: seconds, bytes, and the peak resident memory (VmHWM) in KiB.
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

/// Runs downloads through an embedded service and waits for all of them.
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
    _ = transfers.attach(TransferSessionOptions(app: app, session: "bench", maximumConnectionsPerHost: connections)) {
        event in
        guard case .completed(let transfer, _, _) = event else { return }
        bytes.withLock { $0 += transfer.bytesDone }
        transfers.delivered(app: app, session: "bench", task: transfer.task)
        if remaining.withLock({ value in
            value -= 1
            return value == 0
        }) {
            continuation.finish()
        }
    }
    let start = ContinuousClock.now
    for url in urls {
        let task = transfers.reserveTaskIdentifier(app: app, session: "bench")
        let order = TransferCheckpoint(app: app, session: "bench", task: task, kind: .download, method: "GET", url: url)
        transfers.submit(TransferOrder(transfer: order))
    }
    for await _ in done {}
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (seconds, bytes.withLock { $0 })
}

switch arguments[1] {
case "serve":
    let server = try await LoopbackServer.start(port: Int(arguments[2]) ?? 0)
    server.set("/big", LoopbackRoute(size: Int64(arguments[3]) ?? (1 << 30)))
    for index in 0..<(Int(arguments.count > 4 ? arguments[4] : "0") ?? 0) {
        server.set("/small/\(index)", LoopbackRoute(size: 1024))
    }
    var stalled = LoopbackRoute(size: Int64(arguments[3]) ?? (1 << 30))
    stalled.stallAtOffset = 64 << 20
    server.set("/stall", stalled)
    print("listening \(server.port)")
    while true { try await Task.sleep(for: .seconds(3600)) }
case "download":
    let (seconds, bytes) = try await download([arguments[2]], directory: arguments[3], connections: 6)
    print(String(format: "seconds %.3f bytes %lld peak-rss-kib %d", seconds, bytes, peakResidentKiB()))
case "many":
    let urls = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n").map(String.init)
    let (seconds, bytes) = try await download(urls, directory: arguments[3], connections: Int(arguments[4]) ?? 6)
    print(String(format: "seconds %.3f bytes %lld peak-rss-kib %d", seconds, bytes, peakResidentKiB()))
default:
    FileHandle.standardError.write(Data("TransferBench: unknown command \(arguments[1])\n".utf8))
    exit(64)
}
