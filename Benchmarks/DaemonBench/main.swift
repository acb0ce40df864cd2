// DaemonBench: the daemon's rows of BENCHMARKS.md, measured side by side in one run.
//
//   swift run -c release DaemonBench latency [--pairs 20000]
//       begin+end of a background task through the daemon's socket (an app connection in this
//       process, the daemon's NIO server and engine on their own threads), against a raw
//       Unix-socket echo of the same frames: p50 and p99 of a pair, and their ratio. This is the
//       protocol's round-trip form of a begin (a request answered with the identifier).
//   swift run -c release DaemonBench transport [--pairs 20000] [--journal]
//       begin+end through the app's own transport (`DaemonConnection`: identifiers allocated
//       app-side, both sent one way), against the same raw echo, per pair and sustained until
//       the daemon applied them all (TransportBench.swift). `--journal` gives the daemon an event
//       journal, as backgroundd keeps one (latency takes it too).
//   swift run -c release DaemonBench memory [--apps 100] [--requests 10000]
//       resident memory (VmRSS) of an engine with that many installed apps and pending requests
//       in a real SQLite store.
//   swift run -c release DaemonBench idle <backgroundd> [--seconds 60]
//       CPU ticks (utime + stime in /proc/<pid>/stat) of a started backgroundd with nothing due.
//   swift run -c release DaemonBench frozen [--cycles 200]
//       time from an app's last `endAssertion` (sent by a real app process, this executable in
//       `frozen-app` mode) to `frozen 1` in its cgroup's cgroup.events, through the daemon's
//       engine and process control (FrozenBench.swift), beside the process control's own freeze.
//   swift run -c release DaemonBench restore [--transfers 2000] [--sessions 20] [--apps 1]
//       a restart with that many stored transfers (downloads waiting for a date a day ahead, in
//       that many sessions of each app, in a real SQLite store): the time from the engine made
//       to every transfer restored (`DaemonEngine.runTransfers`), what backgroundd does before
//       it serves.

import BackgroundCore
import BackgroundDaemon
import BackgroundExecution
import BackgroundProtocol
import BackgroundStore
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return Int(arguments[index + 1]) ?? fallback
}
let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
}

/// A blocking framed connection.
final class Connection {
    let fd: Int32
    var decoder = FrameDecoder()
    var chunk = [UInt8](repeating: 0, count: 65536)

    init(fd: Int32) { self.fd = fd }

    convenience init(path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw CocoaError(.fileReadNoSuchFile) }
        self.init(fd: fd)
    }

    func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw CocoaError(.fileWriteUnknown) }
            written += count
        }
    }

    func frame() throws -> [UInt8] {
        while true {
            if let payload = try decoder.nextFrame() { return payload }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { throw CocoaError(.fileReadUnknown) }
            decoder.append(chunk[0..<count])
        }
    }
}

/// A daemon's engine and NIO server in this process, over a fresh state directory, with one
/// installed app (`bench.app`, this executable); `body` runs with them, then all goes.
func withBenchDaemon(
    _ name: String,
    _ body: (AppID, DaemonEngine, DaemonPaths) async throws -> Void
) async throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let app: AppID = "bench.app"
    let installed = InstalledApp(
        manifest: AppManifest(bundleIdentifier: app),
        launch: LaunchCommand(executable: me),
        file: "bench.json"
    )
    let paths = DaemonPaths(state: state)
    try FileManager.default.createDirectory(
        atPath: state,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
    )
    let engine = try DaemonEngine(
        configuration: .init(
            journalPath: arguments.contains("--journal") ? paths.state + "/journal.jsonl" : nil,
            logger: quiet
        ),
        store: BackgroundStore(path: paths.store),
        apps: [installed],
        processes: UnmanagedProcesses()
    )
    let server = try await DaemonServer.start(engine: engine, paths: paths, logger: quiet)
    try await body(app, engine, paths)
    await server.stop()
}

func latency() async throws {
    try await withBenchDaemon("daemonbench") { app, _, paths in try await latency(app, paths) }
}

func latency(_ app: AppID, _ paths: DaemonPaths) async throws {
    let pairs = option("--pairs", 20_000)
    let client = try Connection(path: paths.socket)
    try client.write(Frame.encode(ProtocolCodec.encode(DaemonRequest.hello(ClientHello(role: .app(app))))))
    _ = try client.frame()
    let begin = try Frame.encode(
        ProtocolCodec.encode(
            DaemonRequest.app(
                .event(.beginAssertion(app, name: "Upload", origin: CallSite(), hasExpirationHandler: true))
            )
        )
    )
    // Raw echo: a thread that writes back what it reads, on a socket pair.
    let echo = EchoPair().client
    var daemonTimes: [UInt64] = []
    var echoTimes: [UInt64] = []
    var endFrame: [UInt8] = []
    for index in 0..<(pairs + 1000) {
        // Daemon: begin (answered with the identifier), then end (answered).
        let start = nanoseconds()
        try client.write(begin)
        let reply = try ProtocolCodec.decode(DaemonResponse.self, from: try client.frame())
        guard case .system(.answer(.granted(let id)?, _)) = reply else { fatalError("no grant: \(reply)") }
        endFrame = try Frame.encode(ProtocolCodec.encode(DaemonRequest.app(.event(.endAssertion(app, id)))))
        try client.write(endFrame)
        _ = try client.frame()
        let daemonTime = nanoseconds() - start
        // Echo: the same two frames, there and back.
        let echoStart = nanoseconds()
        try echo.write(begin)
        _ = try echo.frame()
        try echo.write(endFrame)
        _ = try echo.frame()
        let echoTime = nanoseconds() - echoStart
        if index >= 1000 {  // the first 1,000 pairs warm up
            daemonTimes.append(daemonTime)
            echoTimes.append(echoTime)
        }
    }
    daemonTimes.sort()
    echoTimes.sort()
    let d50 = percentile(daemonTimes, 0.5)
    let d99 = percentile(daemonTimes, 0.99)
    let e50 = percentile(echoTimes, 0.5)
    let e99 = percentile(echoTimes, 0.99)
    print("pairs \(pairs), begin frame \(begin.count) bytes, end frame \(endFrame.count) bytes")
    print(String(format: "daemon begin+end  p50 %.1f µs  p99 %.1f µs", d50, d99))
    print(String(format: "raw echo, same frames  p50 %.1f µs  p99 %.1f µs", e50, e99))
    print(String(format: "ratio  p50 %.2f×  p99 %.2f×", d50 / e50, d99 / e99))
}

func residentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

func memory() throws {
    let appCount = option("--apps", 100)
    let requests = option("--requests", 10_000)
    let perApp = (requests + appCount - 1) / appCount
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("daemonbench-mem-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    try FileManager.default.createDirectory(
        atPath: state,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
    )
    let before = residentKiB()
    var policy = SystemPolicy.iOS
    // Apple allows 10 pending processing requests per app; 10,000 over 100 apps needs 100 each.
    policy.scheduling.maximumPendingProcessingRequests = perApp
    let apps = (0..<appCount).map { index -> InstalledApp in
        let id = AppID("bench.app\(index)")
        return InstalledApp(
            manifest: AppManifest(
                bundleIdentifier: id,
                permittedTaskIdentifiers: (0..<perApp).map { "\(id.bundleIdentifier).task\($0)" },
                backgroundModes: [.processing]
            ),
            launch: LaunchCommand(executable: "/usr/bin/true"),
            file: "\(index).json"
        )
    }
    let engine = try DaemonEngine(
        configuration: .init(policy: policy, logger: quiet),
        store: BackgroundStore(path: state + "/store.sqlite"),
        apps: apps,
        processes: UnmanagedProcesses()
    )
    var submitted = 0
    for app in apps {
        engine.deliver(.launch(app.id, .foreground))
        for identifier in app.manifest.permittedTaskIdentifiers {
            engine.deliver(.registerTaskHandler(app.id, identifier: identifier))
        }
        engine.deliver(.finishLaunching(app.id))
        for identifier in app.manifest.permittedTaskIdentifiers where submitted < requests {
            let request = TaskRequest(identifier: identifier, kind: .processing, earliestBegin: .seconds(1 << 40))
            if case .accepted? = engine.deliver(.submitTaskRequest(app.id, request)) { submitted += 1 }
        }
    }
    let after = residentKiB()
    print("apps \(appCount), pending requests \(submitted)")
    print(
        "VmRSS before the engine \(before / 1024) MiB, after \(after / 1024) MiB (\(String(format: "%.1f", Double(after) / 1024)) MiB)"
    )
    withExtendedLifetime(engine) {}
}

func ticks(of pid: Int32) -> Int {
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    // Fields after the command (which may hold spaces) start after the last ')'.
    guard let close = stat.lastIndex(of: ")") else { return -1 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)  // utime (14th), stime (15th)
}

func idle() throws {
    guard arguments.count >= 2 else { fatalError("usage: DaemonBench idle <backgroundd> [--seconds 60]") }
    let seconds = option("--seconds", 60)
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("daemonbench-idle-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[1])
    process.arguments = ["--state-dir", state, "--log-level", "error"]
    process.standardError = FileHandle.nullDevice
    try process.run()
    sleep(3)  // start-up
    let start = ticks(of: process.processIdentifier)
    sleep(UInt32(seconds))
    let end = ticks(of: process.processIdentifier)
    process.terminate()
    process.waitUntilExit()
    print(
        "backgroundd idle for \(seconds) s: \(end - start) CPU ticks (utime+stime; \(sysconf(Int32(_SC_CLK_TCK))) per second)"
    )
}

/// Runs an async row from a synchronous main: valgrind 3.19 (callgrind, for instruction counts)
/// crashes on Swift's async main, not on tasks started from a plain one.
func blocking(_ row: @escaping @Sendable () async throws -> Void) throws {
    let finished = DispatchSemaphore(value: 0)
    let failure = Mutex<(any Error)?>(nil)
    Task.detached {
        do { try await row() } catch { failure.withLock { $0 = error } }
        finished.signal()
    }
    finished.wait()
    if let error = failure.withLock({ $0 }) { throw error }
}

switch arguments.first {
case "latency": try blocking { try await latency() }
case "transport": try blocking { try await transport() }
case "memory": try memory()
case "idle": try idle()
case "frozen": try blocking { try await frozen() }
case "frozen-app": frozenApp()
case "restore": try restore()
default: print("usage: DaemonBench latency|transport|memory|idle|frozen")
}

func restore() throws {
    let total = option("--transfers", 2_000)
    let sessions = option("--sessions", 20)
    let appCount = option("--apps", 1)
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("daemonbench-restore-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    try FileManager.default.createDirectory(
        atPath: state + "/containers",
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
    )
    let apps = (0..<appCount).map { index -> InstalledApp in
        InstalledApp(
            manifest: AppManifest(bundleIdentifier: AppID("bench.app\(index)"), backgroundModes: []),
            launch: LaunchCommand(executable: "/usr/bin/true"),
            file: "\(index).json"
        )
    }
    let store = try BackgroundStore(path: state + "/store.sqlite")
    let tomorrow = Date().timeIntervalSince1970 + 86_400
    var rows: [TransferCheckpoint] = []
    for index in 0..<total {
        let app = apps[index % appCount].id
        rows.append(
            TransferCheckpoint(
                app: app,
                session: "\(app.bundleIdentifier).s\(index / appCount % sessions)",
                task: index + 1,
                kind: .download,
                method: "GET",
                url: "http://127.0.0.1:9/\(index)",
                headers: [TransferHeader(name: "X-Request", value: String(repeating: "h", count: 1_000))],
                earliestBeginUnixSeconds: tomorrow
            )
        )
    }
    try store.applyTransferChanges(saving: rows, removing: [])
    let engine = try DaemonEngine(
        configuration: .init(policy: .iOS, logger: quiet),
        store: store,
        apps: apps,
        processes: UnmanagedProcesses()
    )
    let transfers = DaemonTransfers(configuration: .init(containers: state + "/containers", logger: quiet), store: store)
    let clock = ContinuousClock()
    let elapsed = clock.measure { engine.runTransfers(transfers) }
    let restored = apps.reduce(0) { $0 + (transfers.transferStatus(of: $1.id)?.transfers.count ?? 0) }
    print(
        "restore: \(restored) of \(total) stored transfers (\(appCount) app(s), \(sessions) session(s) each) "
            + "restored in \(elapsed)"
    )
}
