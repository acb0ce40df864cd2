import BackgroundDevice
import BackgroundTestSupport
import Foundation
import Glibc

/// A temporary directory laid out like the machine (`sys/class/power_supply/BAT0/capacity`, …),
/// removed when the test ends.
final class FakeTree: Sendable {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/device-tree-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw DeviceError.system(call: "mkdtemp", target: "tmp", errno: errno)
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    var root: ProbeRoot { ProbeRoot(path) }

    /// Writes `content` to `relative`, creating directories.
    func write(_ relative: String, _ content: String) throws {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try content.write(toFile: full, atomically: false, encoding: .utf8)
    }

    /// Creates an empty directory.
    func directory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/" + relative, withIntermediateDirectories: true)
    }

    /// Writes a power supply's attributes.
    func supply(_ name: String, _ attributes: [String: String]) throws {
        try directory("sys/class/power_supply/" + name)
        for (key, value) in attributes { try write("sys/class/power_supply/\(name)/\(key)", value + "\n") }
    }

    /// Writes a network interface's attributes.
    func interface(_ name: String, _ attributes: [String: String]) throws {
        try directory("sys/class/net/" + name)
        for (key, value) in attributes { try write("sys/class/net/\(name)/\(key)", value + "\n") }
    }

    /// Writes `proc/net/route` (a header, then `lines`) and, unless `nil`, `proc/net/ipv6_route`.
    func routes(_ lines: [String], ipv6: [String]? = nil) throws {
        let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"
        try write("proc/net/route", ([header] + lines).map { $0 + "\n" }.joined())
        if let ipv6 { try write("proc/net/ipv6_route", ipv6.map { $0 + "\n" }.joined()) }
    }

    func remove(_ relative: String) throws {
        try FileManager.default.removeItem(atPath: path + "/" + relative)
    }
}

/// Collects watcher events from the watcher's thread and lets a test wait for one.
final class EventInbox: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var events: [WatchEvent] = []

    var handler: @Sendable (WatchEvent) -> Void {
        { [self] event in lock.withLock { events.append(event) } }
    }

    /// Waits up to `seconds` (real time: the kernel's event is what is being tested) for the next
    /// event; `nil` on timeout. It polls every millisecond with `Task.sleep`, so no thread of
    /// the cooperative pool is held while it waits.
    func next(within seconds: Double = 5) async -> WatchEvent? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            if let event = lock.withLock({ events.isEmpty ? nil : events.removeFirst() }) { return event }
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Drops what arrived so far.
    func drain() {
        lock.withLock { events.removeAll() }
    }
}

enum Machine {
    static var isRoot: Bool { geteuid() == 0 }

    /// Whether this process has CAP_SYS_RESOURCE (bit 24 of CapEff in /proc/self/status).
    static var hasSysResource: Bool {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16)
        else { return false }
        return mask & (1 << 24) != 0
    }

    /// Runs a command, returning its exit status (awaited, never blocking a thread of the pool).
    @discardableResult
    static func run(_ arguments: [String]) async throws -> Int32 {
        try await runChildProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments, timeout: .seconds(30)).status
    }

    /// Starts a command and returns at once, without waiting for its end: for clean-up in a
    /// `defer`, which cannot await.
    static func start(_ arguments: [String]) {
        _ = try? Process.run(URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments)
    }
}
