// DaemonBench frozen: the time from an app's last `endAssertion` to its cgroup's `frozen 1`,
// through the daemon: the app is a real process (this executable, `frozen-app` mode) started by
// `SpawnedAppProcesses` over `LinuxProcessController`, speaking the protocol on its inherited
// connection; the engine is the daemon's, in this process.
//
// One cycle: `home` (the engine sends the app to the background; the app begins an assertion,
// returns from didEnterBackground, notes the time T0 in a FIFO and sends `endAssertion`, its
// last); the bench reads T0, then re-reads the app's cgroup.events (or its /proc state under
// the SIGSTOP fallback) every 20 µs until frozen: T1. T1 - T0 is the row. Then `open` thaws
// it for the next cycle. Side by side, the floor: `LinuxProcessController.freeze` alone on a
// sleeping process (FreezeBench's measure), in the same run.

import BackgroundCore
import BackgroundDaemon
import BackgroundProcessControl
import BackgroundProtocol
import BackgroundStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the same clock in the app's process and the bench's.
func monotonic() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Whether the app is frozen: `frozen 1` in its cgroup's events, or state T (SIGSTOP).
func isFrozen(pid: Int32, events: String?) -> Bool {
    if let events {
        let fd = open(events, O_RDONLY)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 && String(decoding: buffer[0..<count], as: UTF8.self).contains("frozen 1")
    }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return stat.split(separator: ")").last?.split(separator: " ").first == "T"
}

/// The app's cgroup.events, from /proc/<pid>/cgroup under the cgroup2 mount; nil without one.
func cgroupEvents(of pid: Int32) -> String? {
    let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
    guard let line = cgroup.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return nil }
    for mount in ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"] {
        let path = "\(mount)\(line.dropFirst(3))/cgroup.events"
        if access(path, R_OK) == 0, path.contains("daemonbench") { return path }
    }
    return nil
}

func summary(_ name: String, _ samples: [UInt64]) -> (p50: Double, line: String) {
    let sorted = samples.sorted()
    let p50 = percentile(sorted, 0.5)
    let line = String(
        format: "%@  p50 %.0f µs  p90 %.0f µs  p99 %.0f µs  max %.0f µs",
        name,
        p50,
        percentile(sorted, 0.9),
        percentile(sorted, 0.99),
        Double(sorted.last ?? 0) / 1000
    )
    return (p50, line)
}

func frozen() async throws {
    let cycles = option("--cycles", 200)
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("daemonbench-frozen-\(getpid())").path
    try FileManager.default.createDirectory(
        atPath: state,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
    )
    defer { try? FileManager.default.removeItem(atPath: state) }
    let fifo = state + "/t0"
    guard mkfifo(fifo, 0o600) == 0 else { fatalError("mkfifo \(fifo): errno \(errno)") }
    let times = open(fifo, O_RDWR)  // read-write: never blocks on open, never reads EOF
    let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let app: AppID = "bench.frozen"
    let installed = InstalledApp(
        manifest: AppManifest(bundleIdentifier: app),
        launch: LaunchCommand(executable: me, arguments: ["frozen-app"], environment: ["DAEMONBENCH_FIFO": fifo]),
        file: "frozen.json"
    )
    let subtree = "daemonbench-\(getpid())"
    let controller = try LinuxProcessController(configuration: .init(subtreeName: subtree))
    let processes = SpawnedAppProcesses(controller: controller, logger: quiet)
    let engine = try DaemonEngine(
        configuration: .init(logger: quiet),
        store: BackgroundStore(path: state + "/store.sqlite"),
        apps: [installed],
        processes: processes
    )
    processes.bind(engine)
    print("process control: \(controller.freezeMechanism)")
    _ = engine.answer(.open(app))
    while !engine.answer(.apps).json.contains("\"connected\":true") { usleep(10_000) }
    guard let pid = processes.pid(of: app) else { fatalError("the app did not start") }
    let events = cgroupEvents(of: pid)
    var line = [UInt8]()
    var samples: [UInt64] = []
    for cycle in 0..<(cycles + 10) {
        _ = engine.answer(.home)
        line.removeAll()
        var byte: UInt8 = 0
        while read(times, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        guard let t0 = UInt64(String(decoding: line, as: UTF8.self)) else { fatalError("no T0 from the app") }
        while !isFrozen(pid: pid, events: events) { usleep(20) }
        let t1 = monotonic()
        if cycle >= 10 { samples.append(t1 - t0) }  // the first ten warm up
        _ = engine.answer(.open(app))
        while isFrozen(pid: pid, events: events) { usleep(100) }
        usleep(2000)
    }
    processes.kill(app)
    // The floor: the process control's own freeze of a sleeping process, timed by freeze(_:).
    let sleeper = try controller.spawn(
        SpawnRequest(
            label: "bench.sleep",
            executable: "/bin/sleep",
            arguments: ["1000"],
            workingDirectory: "/tmp",
            standardOutput: .null
        )
    )
    try await Task.sleep(for: .milliseconds(50))
    var floor: [UInt64] = []
    for cycle in 0..<(cycles + 10) {
        let took = try await controller.freeze(sleeper)
        let nanoseconds = took.components.seconds * 1_000_000_000 + took.components.attoseconds / 1_000_000_000
        if cycle >= 10 { floor.append(UInt64(nanoseconds)) }
        try controller.thaw(sleeper)
        try await Task.sleep(for: .milliseconds(2))
    }
    try controller.kill(sleeper)
    _ = await controller.exit(of: sleeper)
    let daemon = summary("last endAssertion → frozen, through the daemon", samples)
    let alone = summary("process control's freeze alone (floor)", floor)
    print("cycles \(cycles)")
    print(daemon.line)
    print(alone.line)
    print(String(format: "ratio p50 %.2f×", daemon.p50 / alone.p50))
    try? await Task.sleep(for: .milliseconds(200))  // the cgroups are removed once empty
    rmdir(controllerSubtreePath(controller))
}

func controllerSubtreePath(_ controller: LinuxProcessController) -> String {
    if case .cgroupFreezer(let subtree) = controller.freezeMechanism { return subtree }
    return "/nonexistent"
}

/// The app side: hello on the inherited connection, then at each didEnterBackground: begin an
/// assertion, return from the callback, note T0, end the assertion (the app's last).
func frozenApp() -> Never {
    guard let fd = getenv("BACKGROUND_CONNECTION_FD").flatMap({ Int32(String(cString: $0)) }),
        let bundle = getenv("BACKGROUND_APP").map({ String(cString: $0) }),
        let fifo = getenv("DAEMONBENCH_FIFO").map({ String(cString: $0) })
    else { fatalError("frozen-app: started by DaemonBench frozen only") }
    let app = AppID(bundle)
    let times = open(fifo, O_WRONLY)
    let connection = Connection(fd: fd)
    func send(_ request: DaemonRequest) {
        do { try connection.write(Frame.encode(ProtocolCodec.encode(request))) } catch { exit(0) }
    }
    func next() -> DaemonResponse {
        do { return try ProtocolCodec.decode(DaemonResponse.self, from: try connection.frame()) } catch { exit(0) }
    }
    func answer() -> Reply? {
        while true { if case .system(.answer(let reply, _)) = next() { return reply } }
    }
    send(.hello(ClientHello(role: .app(app))))
    while true {
        var effects: [Effect] = []
        switch next() {
        case .system(.pushed(let pushed)): effects = pushed
        case .system(.answer(_, let answered)): effects = answered
        default: continue
        }
        guard effects.contains(.deliverDidEnterBackground(app)) else { continue }
        send(.app(.event(.beginAssertion(app, name: "Save", origin: CallSite(), hasExpirationHandler: true))))
        guard case .granted(let id)? = answer() else { fatalError("frozen-app: not granted") }
        send(.app(.event(.didEnterBackgroundReturned(app))))
        _ = answer()
        let line = Array("\(monotonic())\n".utf8)
        _ = line.withUnsafeBytes { write(times, $0.baseAddress, $0.count) }
        send(.app(.event(.endAssertion(app, id))))
    }
}
