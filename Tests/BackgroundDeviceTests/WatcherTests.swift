import Foundation
import Glibc
import Testing

@testable import BackgroundDevice

extension DeviceThreads {
    /// Real kernel wake-ups: inotify on fake trees, rtnetlink on this machine's links, a PSI trigger
    /// on this machine's pressure file. Waits are on the real clock because the kernel's event is
    /// what is tested; each has a 5 s ceiling and returns as soon as the event arrives.
    @Suite("Watchers wake on kernel events", .serialized)
    struct WatcherTests {
        @Test("A capacity written in a fake power_supply tree wakes the power watcher (inotify); stop ends it")
        func powerInotify() async throws {
            let tree = try FakeTree()
            try tree.supply("BAT0", ["type": "Battery", "capacity": "50", "status": "Discharging"])
            let watcher = try PowerSupplyWatcher(root: tree.root)
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            try tree.write("sys/class/power_supply/BAT0/capacity", "49\n")
            #expect(await inbox.next() == .changed)
            #expect(SysfsPowerProbe(root: tree.root).supplies().value?.first?.capacity == 49)
            inbox.drain()
            // A supply plugged in later is watched too.
            try tree.supply("AC", ["type": "Mains", "online": "0"])
            #expect(await inbox.next() == .changed)
            inbox.drain()
            try tree.write("sys/class/power_supply/AC/online", "1\n")
            #expect(await inbox.next() == .changed)
            watcher.stop()
            inbox.drain()
            try tree.write("sys/class/power_supply/BAT0/capacity", "48\n")
            #expect(await inbox.next(within: 0.3) == nil)
            watcher.stop()
        }

        @Test("A tree without power_supply cannot be watched: a typed ENOENT")
        func powerMissing() throws {
            let tree = try FakeTree()
            let watcher = try PowerSupplyWatcher(root: tree.root)
            #expect(
                throws: DeviceError.system(
                    call: "inotify_add_watch",
                    target: tree.path + "/sys/class/power_supply",
                    errno: ENOENT
                )
            ) {
                try watcher.start { _ in }
            }
        }

        @Test(
            "On this machine the uevent socket opens for power supplies",
            .enabled(if: ProbeRoot.machine.exists("sys/class/power_supply"))
        )
        func powerUevent() throws {
            let watcher = try PowerSupplyWatcher()
            try watcher.start { _ in }
            watcher.stop()
        }

        @Test(
            "Adding, raising, addressing, routing and deleting a veth pair wakes the network watcher (rtnetlink)",
            .enabled(if: Machine.isRoot, "needs root to add a link")
        )
        func networkNetlink() async throws {
            // veth rather than dummy: this machine's kernel has no dummy driver and no modules.
            let name = "bgv\(getpid() % 100000)"
            guard try await Machine.run(["ip", "link", "add", name, "type", "veth", "peer", "name", name + "p"]) == 0
            else {
                Issue.record("ip link add \(name) type veth failed")
                return
            }
            defer { Machine.start(["ip", "link", "delete", name]) }  // gone already when the test passes
            // A link that is down: its carrier answers EINVAL, read as no carrier.
            let down = SysfsNetworkProbe().interface(named: name)
            #expect(down.carrier == false)
            #expect(!down.isConnected)
            let watcher = try NetworkWatcher()
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            #expect(try await Machine.run(["ip", "link", "set", name, "up"]) == 0)
            #expect(await inbox.next() == .changed)
            inbox.drain()
            #expect(try await Machine.run(["ip", "link", "set", name + "p", "up"]) == 0)
            // Both ends up: a carrier, then operstate goes lowerlayerdown → up a moment later (the
            // kernel's linkwatch), announced by its own message; re-read on each, as the daemon does.
            var connected = false
            while !connected, await inbox.next() == .changed {
                connected = SysfsNetworkProbe().interface(named: name).isConnected
            }
            #expect(connected)
            inbox.drain()
            #expect(try await Machine.run(["ip", "address", "add", "127.254.0.1/32", "dev", name]) == 0)
            #expect(await inbox.next() == .changed)
            inbox.drain()
            // A route on the link (TEST-NET-2; the metric keeps concurrent runs' routes apart) wakes
            // the watcher, and the probe reads it as a usable route on this interface.
            let metric = String(getpid() % 100000 + 1)
            #expect(
                try await Machine.run(["ip", "route", "add", "198.51.100.0/24", "dev", name, "metric", metric]) == 0
            )
            #expect(await inbox.next() == .changed)
            inbox.drain()
            let routes = SysfsNetworkProbe().routes()?.value ?? []
            #expect(
                routes.contains { $0.interface == name && $0.isUsable && $0.description == "route 198.51.100.0/24" }
            )
            #expect(try await Machine.run(["ip", "link", "delete", name]) == 0)
            #expect(await inbox.next() == .changed)
            watcher.stop()
            #expect(SysfsNetworkProbe().interfaces().value?.contains { $0.name == name } == false)
        }

        @Test("rtnetlink message types: link, address and route changes count; others do not; lengths are checked")
        func netlinkParsing() {
            func message(type: UInt16, length: UInt32 = 16) -> [UInt8] {
                var bytes = withUnsafeBytes(of: length.littleEndian, Array.init)
                bytes += withUnsafeBytes(of: type.littleEndian, Array.init)
                bytes += [UInt8](repeating: 0, count: 10)
                return bytes
            }
            #expect(NetlinkSocket.messageTypes(in: message(type: 16) + message(type: 20)) == [16, 20])
            #expect(NetlinkSocket.messageTypes(in: message(type: 16, length: 400)) == [])
            #expect(NetlinkSocket.messageTypes(in: message(type: 16, length: 4)) == [])
            #expect(NetlinkSocket.messageTypes(in: Array(message(type: 16).prefix(10))) == [])
            #expect([16, 17, 20, 21, 24, 25].allSatisfy(NetworkWatcher.isChange))
            #expect(![3, 22, 26, 0xFFFF].contains(where: NetworkWatcher.isChange))
            let uevent = Array(
                "change@/devices/LNXSYSTM:00/ACPI0003:00/power_supply/AC\0ACTION=change\0SUBSYSTEM=power_supply\0".utf8
            )
            #expect(NetlinkSocket.isUevent(uevent, subsystem: "power_supply"))
            #expect(!NetlinkSocket.isUevent(Array("add@/x\0SUBSYSTEM=usb\0".utf8), subsystem: "power_supply"))
        }

        @Test("Input in a fake event device wakes the input watcher; idle follows the wait, a hang-up drops the device")
        func inputActivity() async throws {
            let tree = try FakeTree()
            try tree.directory("dev/input")
            #expect(mkfifo(tree.path + "/dev/input/event0", 0o600) == 0)
            let watcher = try InputActivityWatcher(root: tree.root, idleAfter: .milliseconds(300))
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            #expect(watcher.idleness() == .read(false, from: "input from event0"))
            // No input for 300 ms: idle, from one poll timeout.
            #expect(await inbox.next() == .changed)
            #expect(watcher.idleness().value == true)
            // An event (24 bytes, a struct input_event) makes the user active again.
            let writer = open(tree.path + "/dev/input/event0", O_WRONLY | O_NONBLOCK)
            #expect(writer >= 0)
            #expect(write(writer, [UInt8](repeating: 1, count: 24), 24) == 24)
            #expect(await inbox.next() == .changed)
            #expect(watcher.idleness().value == false)
            close(writer)
            // The writer's hang-up is an unplugged device: dropped, and the reading says so.
            #expect(await inbox.next() != nil)
            inbox.drain()
            #expect(watcher.idleness() == .unavailable(reason: "no input device in \(tree.path)/dev/input"))
            watcher.stop()
        }

        @Test("A device node appearing in dev/input is picked up (inotify); a regular file is refused with the reason")
        func inputHotplug() async throws {
            let tree = try FakeTree()
            try tree.directory("dev/input")
            let watcher = try InputActivityWatcher(root: tree.root, idleAfter: .seconds(3600))
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            #expect(watcher.idleness() == .unavailable(reason: "no input device in \(tree.path)/dev/input"))
            try tree.write("dev/input/event3", "")
            #expect(await inbox.next() == .changed)
            #expect(watcher.idleness() == .unavailable(reason: "event3: not a character device"))
            #expect(mkfifo(tree.path + "/dev/input/event4", 0o600) == 0)
            #expect(await inbox.next() == .changed)
            #expect(watcher.idleness() == .read(false, from: "input from event4"))
            watcher.stop()
        }

        @Test("Only keyboards and pointers count: a lid switch's events are not activity, its node is never opened")
        func inputCapabilities() async throws {
            let tree = try FakeTree()
            try tree.directory("dev/input")
            let capabilities = ["ev": "21", "key": "0", "rel": "0", "abs": "0"]  // a lid switch (EV_SW)
            for (file, value) in capabilities {
                try tree.write(InputActivityWatcher.capabilitiesDirectory(of: "event0") + file, value + "\n")
            }
            let keyboard = ["ev": "120013", "key": "feffffdfffefffff fffffffffffffffe", "rel": "0", "abs": "0"]
            for (file, value) in keyboard {
                try tree.write(InputActivityWatcher.capabilitiesDirectory(of: "event1") + file, value + "\n")
            }
            #expect(mkfifo(tree.path + "/dev/input/event0", 0o600) == 0)
            let watcher = try InputActivityWatcher(root: tree.root, idleAfter: .seconds(3600))
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            #expect(watcher.idleness() == .unavailable(reason: "event0: not a keyboard or pointer"))
            // The switch's node was not opened: a writer finds no reader.
            let writer = open(tree.path + "/dev/input/event0", O_WRONLY | O_NONBLOCK)
            let code = errno
            #expect(writer == -1 && code == ENXIO)
            #expect(mkfifo(tree.path + "/dev/input/event1", 0o600) == 0)
            #expect(await inbox.next() == .changed)
            #expect(watcher.idleness() == .read(false, from: "input from event1"))
            watcher.stop()
        }

        @Test("Without dev/input the idleness is unavailable, and the reading defaults to idle")
        func inputMissing() throws {
            let tree = try FakeTree()
            let watcher = try InputActivityWatcher(root: tree.root)
            try watcher.start { _ in }
            let idleness = watcher.idleness()
            #expect(idleness == .unavailable(reason: "no \(tree.path)/dev/input"))
            watcher.stop()
            let reading = DeviceReading(
                power: .unavailable(reason: "test"),
                network: .unavailable(reason: "test"),
                idleness: idleness,
                memory: .unavailable(reason: "test")
            )
            #expect(reading.idle == Sourced(true, .defaulted(reason: "no \(tree.path)/dev/input")))
        }

        @Test(
            "The default PSI trigger registers on this machine's pressure file and the watcher stops cleanly",
            .enabled(if: ProbeRoot.machine.exists("proc/pressure/memory"))
        )
        func pressureTrigger() throws {
            let watcher = try MemoryPressureWatcher(file: "proc/pressure/memory")
            try watcher.start { _ in }
            watcher.stop()
            watcher.stop()
        }

        @Test(
            "The kernel refuses a 1 s window without CAP_SYS_RESOURCE: a typed EINVAL from write",
            .enabled(if: ProbeRoot.machine.exists("proc/pressure/memory") && !Machine.hasSysResource)
        )
        func pressureTriggerRefused() throws {
            let trigger = try PressureTrigger(.some, stallMicroseconds: 150_000, windowMicroseconds: 1_000_000)
            let watcher = try MemoryPressureWatcher(file: "proc/pressure/memory", trigger: trigger)
            #expect(throws: DeviceError.system(call: "write", target: "/proc/pressure/memory", errno: EINVAL)) {
                try watcher.start { _ in }
            }
        }

        @Test("A missing pressure file is a typed ENOENT from open")
        func pressureMissing() throws {
            let tree = try FakeTree()
            let watcher = try MemoryPressureWatcher(root: tree.root, file: "proc/pressure/memory")
            #expect(
                throws: DeviceError.system(call: "open", target: tree.path + "/proc/pressure/memory", errno: ENOENT)
            ) {
                try watcher.start { _ in }
            }
        }
    }
}

/// In the serialized suite: no other watcher thread may run while the ticks are counted.
extension DeviceThreads.WatcherTests {
    /// utime + stime of each of this process's threads named `bg-*`, by name.
    static func watcherTicks() throws -> [String: Int] {
        var ticks: [String: Int] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            guard name.hasPrefix("bg-") else { continue }
            // Fields after the name: state is field 3, utime 14, stime 15 (1-based, proc(5)).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            ticks[name, default: 0] += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        return ticks
    }

    @Test("All four watchers on this machine use no CPU tick over a second of quiet (one blocked thread each)")
    func idle() async throws {
        let power = try PowerSupplyWatcher()
        let network = try NetworkWatcher()
        let input = try InputActivityWatcher()
        var watchers: [any DeviceWatcher] = []
        if ProbeRoot.machine.exists("sys/class/power_supply") {
            try power.start { _ in }
            watchers.append(power)
        }
        try network.start { _ in }
        try input.start { _ in }
        watchers += [network, input] as [any DeviceWatcher]
        if ProbeRoot.machine.exists("proc/pressure/memory") {
            let memory = try MemoryPressureWatcher(file: "proc/pressure/memory")
            try memory.start { _ in }
            watchers.append(memory)
        }
        defer { for watcher in watchers { watcher.stop() } }
        // Real time on purpose: what is measured is that nothing runs while it passes.
        try await Task.sleep(for: .milliseconds(200))
        // Only this test's watchers' threads (another suite's would be another name).
        let names: Set = ["bg-power", "bg-network", "bg-input", "bg-memory"]
        let before = try Self.watcherTicks().filter { names.contains($0.key) }
        try await Task.sleep(for: .seconds(1))
        let after = try Self.watcherTicks().filter { names.contains($0.key) }
        #expect(before.count == watchers.count, "threads found: \(before.keys.sorted())")
        #expect(after == before)
    }
}
