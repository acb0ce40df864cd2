import Testing

@testable import BackgroundDevice

@Suite("Memory pressure from PSI and meminfo")
struct MemoryProbeTests {
    static let quiet =
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    static let pressed =
        "some avg10=42.00 avg60=10.00 avg300=2.00 total=5000000\nfull avg10=7.50 avg60=1.00 avg300=0.20 total=900000\n"
    static let meminfo = "MemTotal:       24576000 kB\nMemFree:         1000000 kB\nMemAvailable:    6144000 kB\n"

    @Test("The cgroup's memory.pressure is preferred to /proc/pressure/memory")
    func cgroupFirst() throws {
        let tree = try FakeTree()
        try tree.write("proc/pressure/memory", Self.quiet)
        try tree.write("proc/meminfo", Self.meminfo)
        try tree.write("sys/fs/cgroup/unified/backgroundd/memory.pressure", Self.pressed)
        let probe = ProcMemoryPressureProbe(root: tree.root, cgroup: "sys/fs/cgroup/unified/backgroundd")
        #expect(probe.stallFile == "sys/fs/cgroup/unified/backgroundd/memory.pressure")
        guard case .read(let pressure, let from) = probe.pressure() else {
            Issue.record("unreadable")
            return
        }
        #expect(from == tree.path + "/sys/fs/cgroup/unified/backgroundd/memory.pressure")
        #expect(pressure.stall.some.avg10 == 42)
        #expect(pressure.stall.full?.avg10 == 7.5)
        #expect(pressure.memory == MemoryInfo(totalBytes: 24_576_000 * 1024, availableBytes: 6_144_000 * 1024))
        #expect(pressure.memory?.availableFraction == 0.25)
    }

    @Test("Without a cgroup file the system-wide file is read")
    func systemFallback() throws {
        let tree = try FakeTree()
        try tree.write("proc/pressure/memory", Self.pressed)
        let probe = ProcMemoryPressureProbe(root: tree.root, cgroup: "sys/fs/cgroup/unified/missing")
        #expect(probe.stallFile == "proc/pressure/memory")
        #expect(probe.pressure().value?.stall.some.total == 5_000_000)
        #expect(probe.pressure().value?.memory == nil)
    }

    @Test("No PSI at all, or garbage in it, is unavailable with the reason")
    func unavailable() throws {
        let tree = try FakeTree()
        #expect(
            ProcMemoryPressureProbe(root: tree.root).pressure()
                == .unavailable(reason: "no \(tree.path)/proc/pressure/memory (a kernel without PSI)")
        )
        try tree.write("proc/pressure/memory", "some avg10=lots\n")
        #expect(
            ProcMemoryPressureProbe(root: tree.root).pressure()
                == .unavailable(
                    reason:
                        "\(tree.path)/proc/pressure/memory: line 1 \"some avg10=lots\" is not 'some|full avg10=N avg60=N avg300=N total=N'"
                )
        )
    }

    @Test("meminfo: missing MemAvailable, other units and garbage are typed errors")
    func meminfoErrors() {
        #expect(throws: DeviceError.malformed(path: "m", reason: "no MemAvailable line (a kernel older than 3.14)")) {
            try MemoryInfo(parsing: "MemTotal: 10 kB\n", path: "m")
        }
        #expect(throws: DeviceError.malformed(path: "m", reason: "no MemTotal line")) {
            try MemoryInfo(parsing: "MemAvailable: 10 kB\n", path: "m")
        }
        #expect(throws: DeviceError.malformed(path: "m", reason: "\"MemTotal: 10 MB\" is not 'Key: N kB'")) {
            try MemoryInfo(parsing: "MemTotal: 10 MB\n", path: "m")
        }
        #expect(throws: DeviceError.self) {
            try MemoryInfo(parsing: "MemTotal: 99999999999999999999 kB\nMemAvailable: 1 kB", path: "m")
        }
    }

    @Test("This machine's files parse", .enabled(if: ProbeRoot.machine.exists("proc/pressure/memory")))
    func realMachine() {
        guard case .read(let pressure, _) = ProcMemoryPressureProbe().pressure() else {
            Issue.record("unreadable")
            return
        }
        #expect(pressure.memory.map { $0.totalBytes > 0 } == true)
    }

    @Test("Triggers outside the kernel's limits are refused before any write")
    func triggerLimits() throws {
        #expect(PressureTrigger.default.description == "some 150000 2000000")
        #expect(PressureTrigger.default.bytes.last == 0)
        #expect(throws: DeviceError.self) {
            try PressureTrigger(.some, stallMicroseconds: 1, windowMicroseconds: 100_000)
        }
        #expect(throws: DeviceError.self) {
            try PressureTrigger(.full, stallMicroseconds: 0, windowMicroseconds: 1_000_000)
        }
        #expect(throws: DeviceError.self) {
            try PressureTrigger(.some, stallMicroseconds: 3_000_000, windowMicroseconds: 2_000_000)
        }
        #expect(
            try PressureTrigger(.full, stallMicroseconds: 100_000, windowMicroseconds: 4_000_000).description
                == "full 100000 4000000"
        )
    }
}
