import BackgroundCore
import BackgroundDaemon
import BackgroundDevice
import BackgroundExecution
import BackgroundProtocol
import BackgroundStore
import Foundation
import Logging
import Synchronization
import Testing

/// Issue 11 §3 and §4 in the daemon: every condition in `bgctl daemon status` and `bgctl device`
/// names its source, `bgctl device set` overrides probes in developer mode only (logged and
/// journaled), and memory pressure read from a (fake) PSI source drives reclaim.
@Suite("backgroundd: device conditions, overrides and memory pressure")
struct DaemonDeviceTests {
    static let notes: AppID = "com.example.notes"
    static let mail: AppID = "com.example.mail"

    /// A memory probe the test sets.
    final class SettableMemoryProbe: MemoryPressureProbe {
        let answer = Mutex<Probed<BackgroundDevice.MemoryPressure>>(.unavailable(reason: "not set"))
        func pressure() -> Probed<BackgroundDevice.MemoryPressure> { answer.withLock { $0 } }

        func set(some: Double, full: Double, availableMiB: UInt64 = 8_000) {
            let stall = PressureStall(
                some: .init(avg10: some, avg60: 0, avg300: 0, total: 1),
                full: .init(avg10: full, avg60: 0, avg300: 0, total: 1)
            )
            let memory = MemoryInfo(totalBytes: 16_000 << 20, availableBytes: availableMiB << 20)
            answer.withLock {
                $0 = .read(.init(stall: stall, stallSource: "fake", memory: memory), from: "/fake/memory.pressure")
            }
        }
    }

    /// Log lines, for "said once" and "logged".
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var logger: Logger {
            Logger(label: "test") { _ in Handler(lines: self) }
        }
        struct Handler: LogHandler {
            let lines: LogLines
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) { lines.lines.withLock { $0.append("\(event.message)") } }
        }
    }

    struct Fixture {
        let engine: DaemonEngine
        let processes: RecordingProcesses
        let memory: SettableMemoryProbe
        let log: LogLines
        let journal: TemporaryDirectory

        init(
            developerMode: Bool,
            power: any PowerProbe = FixedPowerProbe(.unavailable(reason: "no power supply found"))
        ) throws {
            let apps = [Self.app(DaemonDeviceTests.notes), Self.app(DaemonDeviceTests.mail)]
            memory = SettableMemoryProbe()
            memory.set(some: 0, full: 0)
            log = LogLines()
            processes = RecordingProcesses()
            journal = try TemporaryDirectory()
            let eth0 = NetworkInterface(name: "eth0", hardwareType: 1, operState: "up", carrier: true)
            let sources = DeviceSources(
                power: power,
                network: FixedNetworkProbe(.read([eth0], from: "/sys/class/net")),
                memory: memory
            )
            var configuration = DaemonEngine.Configuration(
                journalPath: journal.path + "/journal.jsonl",
                logger: log.logger
            )
            configuration.deviceSettings = DaemonDevice.Settings(sources: sources, developerMode: developerMode)
            let clock = TestClock()
            engine = try DaemonEngine(
                configuration: configuration,
                store: try BackgroundStore.inMemory(),
                apps: apps,
                processes: processes,
                clock: { clock.now },
                wallClock: WallClock(unixSecondsAtOrigin: 1_767_225_600),
                wakeups: RecordedWakeups()
            )
        }

        static func app(_ id: AppID) -> InstalledApp {
            InstalledApp(
                manifest: AppManifest(bundleIdentifier: id, permittedTaskIdentifiers: [], backgroundModes: [.fetch]),
                launch: LaunchCommand(executable: "/usr/bin/\(id.bundleIdentifier)"),
                file: "\(id.bundleIdentifier).json"
            )
        }

        func journalText() throws -> String {
            try String(contentsOfFile: journal.path + "/journal.jsonl", encoding: .utf8)
        }

        func connect(_ app: AppID) -> RecordingLink {
            let link = RecordingLink()
            engine.connected(link)
            engine.received(.hello(ClientHello(role: .app(app))), from: link, peer: nil)
            return link
        }

        func send(_ event: Event, from link: RecordingLink) {
            engine.received(.app(.event(event)), from: link, peer: nil)
        }
    }

    static func document(_ reply: ControlReply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(reply.json.utf8)) as? [String: Any])
    }

    static func state(of app: AppID, _ engine: DaemonEngine) throws -> String? {
        let rows = try #require(try document(engine.answer(.apps))["apps"] as? [[String: Any]])
        return rows.first { $0["app"] as? String == app.bundleIdentifier }?["state"] as? String
    }

    static func conditions(_ document: [String: Any]) throws -> [String: [String: Any]] {
        let list = try #require(document["conditions"] as? [[String: Any]])
        var byName: [String: [String: Any]] = [:]
        for entry in list { byName[entry["name"] as? String ?? ""] = entry }
        return byName
    }

    @Test("status and device name every condition's source: probe, or the documented default with its reason")
    func statusNamesSources() throws {
        let fixture = try Fixture(developerMode: false)
        defer { fixture.journal.remove() }
        let status = fixture.engine.answer(.status)
        #expect(status.text.contains("power: external (default: no power supply found)"))
        #expect(status.text.contains("network: wifi (probe: eth0 up with carrier)"))
        #expect(status.text.contains("low-power: off (default: not read: no D-Bus source given)"))
        #expect(status.text.contains("memory pressure: normal; next to reclaim: none"))
        let device = try #require(try Self.document(status)["device"] as? [String: Any])
        let conditions = try Self.conditions(device)
        #expect(
            conditions.keys.sorted()
                == ["battery", "constrained", "idle", "low-power", "metered", "network", "power", "unlocked"]
        )
        #expect(conditions["power"]?["source"] as? String == "default")
        #expect(conditions["network"]?["source"] as? String == "probe")
        #expect(conditions["metered"]?["value"] as? String == "no")
        let memory = try #require(device["memory"] as? [String: Any])
        #expect(memory["source"] as? String == "probe")
        #expect(memory["detail"] as? String == "probe: /fake/memory.pressure")
        // Each default reason is logged once, at start.
        let said = fixture.log.all.filter { $0.contains("power: no power supply found") }
        #expect(said.count == 1)
        fixture.engine.device.refresh(fixture.engine)
        #expect(fixture.log.all.filter { $0.contains("power: no power supply found") }.count == 1)
    }

    @Test("a probe's fake sysfs tree is the source: AC online reads as external power from the probe")
    func fakeTreeSource() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        let ac = tree.path + "/sys/class/power_supply/AC"
        try FileManager.default.createDirectory(atPath: ac, withIntermediateDirectories: true)
        try "Mains\n".write(toFile: ac + "/type", atomically: false, encoding: .utf8)
        try "1\n".write(toFile: ac + "/online", atomically: false, encoding: .utf8)
        let fixture = try Fixture(developerMode: false, power: SysfsPowerProbe(root: ProbeRoot(tree.path)))
        defer { fixture.journal.remove() }
        let conditions = try Self.conditions(try Self.document(fixture.engine.answer(.deviceConditions)))
        #expect(conditions["power"]?["source"] as? String == "probe")
        #expect((conditions["power"]?["detail"] as? String)?.hasPrefix("probe: AC") == true)
    }

    @Test("device set is refused outside developer mode, naming how to turn it on")
    func refusedOutsideDeveloperMode() throws {
        let fixture = try Fixture(developerMode: false)
        defer { fixture.journal.remove() }
        let reply = fixture.engine.answer(.overrideDevice(["power=battery"]))
        #expect(reply.outcome == .denied)
        #expect(reply.text == "device overrides need developer mode: start backgroundd with --developer-mode")
        #expect(fixture.engine.answer(.clearDeviceOverrides).outcome == .denied)
    }

    @Test("device set overrides probes, reaches the core, is logged and journaled; clear returns to the probes")
    func overridesAndClear() throws {
        let fixture = try Fixture(developerMode: true)
        defer { fixture.journal.remove() }
        let reply = fixture.engine.answer(
            .overrideDevice(["power=battery", "battery=15", "network=none", "lowpower=on"])
        )
        #expect(reply.outcome == .ok)
        #expect(reply.text.contains("power: battery (override)"))
        #expect(reply.text.contains("battery: 15% (override)"))
        #expect(reply.text.contains("overrides: power=battery battery=15 network=none low-power=on"))
        let device = fixture.engine.deviceConditions
        #expect(device.powerSource == .battery && device.batteryLevel == 0.15)
        #expect(device.network == .none && device.lowPowerMode)
        #expect(
            fixture.log.all.contains(
                "device: overrides power=battery battery=15 network=none low-power=on (bgctl device)"
            )
        )
        #expect(try fixture.journalText().contains("setDevice"))

        // key=probe clears one key; the others stay.
        _ = fixture.engine.answer(.overrideDevice(["network=probe"]))
        #expect(fixture.engine.deviceConditions.network == .wifi)
        #expect(fixture.engine.answer(.deviceConditions).text.contains("network: wifi (probe: eth0 up with carrier)"))

        let cleared = fixture.engine.answer(.clearDeviceOverrides)
        #expect(cleared.outcome == .ok)
        #expect(cleared.text.contains("power: external (default: no power supply found)"))
        #expect(!cleared.text.contains("override"))
        #expect(fixture.engine.deviceConditions == EmbeddedSystem.serverDevice)
    }

    @Test("a bad key or value is one line, invalid (exit 64), and nothing changes")
    func badArguments() throws {
        let fixture = try Fixture(developerMode: true)
        defer { fixture.journal.remove() }
        let before = fixture.engine.deviceConditions
        for arguments in [["volume=3"], ["battery=150"], ["power"], ["power=battery", "power=external"]] {
            let reply = fixture.engine.answer(.overrideDevice(arguments))
            #expect(reply.outcome == .invalid)
            #expect(!reply.text.contains("\n"))
        }
        #expect(fixture.engine.answer(.overrideDevice(["battery=150"])).text.contains("battery='150' is not valid"))
        #expect(fixture.engine.deviceConditions == before)
    }

    @Test("Low Power Mode reaches apps: in the welcome, and pushed when an override turns it on")
    func lowPowerModeReachesApps() throws {
        let fixture = try Fixture(developerMode: true)
        defer { fixture.journal.remove() }
        let notes = fixture.connect(Self.notes)
        let welcome = notes.sent.withLock { $0 }.compactMap { response -> DaemonWelcome? in
            if case .welcome(let welcome) = response { return welcome }
            return nil
        }
        #expect(welcome.first?.lowPowerMode == false)
        _ = fixture.engine.answer(.overrideDevice(["low-power=on"]))
        let pushed = notes.sent.withLock { $0 }.contains {
            "\($0)".contains("powerStateChanged") && "\($0)".contains("true")
        }
        #expect(pushed)
        let late = fixture.connect(Self.mail)
        let lateWelcome = late.sent.withLock { $0 }.compactMap { response -> DaemonWelcome? in
            if case .welcome(let welcome) = response { return welcome }
            return nil
        }
        #expect(lateWelcome.first?.lowPowerMode == true, "an app connecting later learns it from the welcome")
    }

    @Test("fake memory pressure: the suspended app is reclaimed first, the assertion holder warned before any kill")
    func memoryPressureDrivesReclaim() throws {
        let fixture = try Fixture(developerMode: false)
        defer { fixture.journal.remove() }
        let engine = fixture.engine
        // notes: backgrounded with nothing held, so suspended (frozen).
        let notes = fixture.connect(Self.notes)
        fixture.send(.finishLaunching(Self.notes), from: notes)
        _ = engine.answer(.home)
        fixture.send(.didEnterBackgroundReturned(Self.notes), from: notes)
        #expect(try Self.state(of: Self.notes, engine) == "suspended")
        // mail: backgrounded holding an assertion.
        let mail = fixture.connect(Self.mail)
        fixture.send(.finishLaunching(Self.mail), from: mail)
        _ = engine.answer(.open(Self.mail))
        fixture.send(
            .beginAssertion(Self.mail, name: "upload", origin: CallSite(), hasExpirationHandler: true),
            from: mail
        )
        _ = engine.answer(.home)
        fixture.send(.didEnterBackgroundReturned(Self.mail), from: mail)
        #expect(try Self.state(of: Self.mail, engine) == "background")
        #expect(engine.answer(.status).text.contains("next to reclaim: com.example.notes"))

        // Critical pressure, from the probe: one reclaim step per reading.
        fixture.memory.set(some: 40, full: 12)
        engine.device.memoryChanged(engine)
        let reclaimed = try Self.state(of: Self.notes, engine)
        #expect(reclaimed == "terminated (reclaimed by the system)")
        #expect(try Self.state(of: Self.mail, engine) == "background")
        #expect(engine.answer(.status).text.contains("memory pressure: critical"))

        engine.device.memoryChanged(engine)
        let warned = mail.sent.withLock { $0 }.contains { "\($0)".contains("runExpirationHandler") }
        #expect(warned)
        #expect(try Self.state(of: Self.mail, engine) == "background")

        fixture.memory.set(some: 0, full: 0)
        engine.device.memoryChanged(engine)
        #expect(engine.answer(.status).text.contains("memory pressure: normal"))
        #expect(
            fixture.log.all.contains {
                $0.hasPrefix("device: memory pressure critical (some avg10=40.00% full avg10=12.00%")
            }
        )
    }
}
