import Foundation
import Testing

@testable import BackgroundDevice

extension DeviceThreads {
    /// ``DesktopBusWatcher`` against a private `dbus-daemon` with fake services: values read at start,
    /// changes pushed by `PropertiesChanged`, a service started later, a service leaving, no bus.
    /// Waits are on the real clock (the bus's delivery is what is tested), each at most 5 s.
    @Suite(
        "D-Bus desktop sources against a private dbus-daemon",
        .serialized,
        .enabled(
            if: PrivateBus.executable != nil || PrivateBus.required,
            "skipped: needs dbus-daemon; apt-get install dbus-daemon"
        )
    )
    struct DesktopBusWatcherTests {
        static let profiles = BusProperty.powerProfiles[0]
        static let session = "/org/freedesktop/login1/session/c2"

        /// power-profiles-daemon on `bus`, its profile `power-saver`.
        static func powerSaver(on bus: PrivateBus) async throws -> FakeBusService {
            try await FakeBusService.start(
                address: bus.address,
                name: profiles.service,
                properties: [profiles: .variant("s", .string("power-saver"))]
            )
        }

        @Test("power-saver read at start is Low Power Mode; balanced pushed later turns it off; stop ends it")
        func lowPowerMode() async throws {
            let bus = try await PrivateBus()
            let daemon = try await Self.powerSaver(on: bus)
            defer { daemon.stop() }
            let watcher = try DesktopBusWatcher(address: bus.address)
            #expect(
                watcher.lowPowerMode() == .read(true, from: "D-Bus power-profiles-daemon ActiveProfile=power-saver")
            )
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            try daemon.set(Self.profiles, .variant("s", .string("balanced")))
            #expect(await inbox.next() == .changed)
            #expect(watcher.lowPowerMode().value == false)
            watcher.stop()
            inbox.drain()
            try daemon.set(Self.profiles, .variant("s", .string("power-saver")))
            #expect(await inbox.next(within: 0.3) == nil)
        }

        @Test("logind: IdleHint, seat0's active session and its LockedHint; unlocked since boot once it reads false")
        func logind() async throws {
            let bus = try await PrivateBus()
            let logind = try await FakeBusService.start(
                address: bus.address,
                name: BusProperty.login,
                properties: [
                    .idleHint: .variant("b", .bool(false)),
                    .activeSession: .variant("(so)", .structure([.string("c2"), .string(Self.session)])),
                    .locked(Self.session): .variant("b", .bool(true)),
                ]
            )
            defer { logind.stop() }
            let watcher = try DesktopBusWatcher(address: bus.address)
            #expect(watcher.idleHint() == .read(false, from: "D-Bus logind IdleHint=false"))
            #expect(watcher.unlockedSinceBoot().value == false, "\(watcher.unlockedSinceBoot())")
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            try logind.set(.locked(Self.session), .variant("b", .bool(false)))
            #expect(await inbox.next() == .changed)
            #expect(watcher.unlockedSinceBoot().value == true)
            try logind.set(.idleHint, .variant("b", .bool(true)))
            #expect(await inbox.next() == .changed)
            #expect(watcher.idleHint().value == true)
            watcher.stop()
        }

        @Test("NetworkManager started after the watcher is read (NameOwnerChanged); when it leaves, Metered is unread")
        func serviceComesAndGoes() async throws {
            let bus = try await PrivateBus()
            let watcher = try DesktopBusWatcher(address: bus.address)
            #expect(watcher.metered().reason?.hasPrefix("NetworkManager not on the D-Bus system bus") == true)
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            let manager = try await FakeBusService.start(
                address: bus.address,
                name: BusProperty.metered.service,
                properties: [.metered: .variant("u", .uint(3))]
            )
            #expect(await inbox.next() == .changed)
            #expect(watcher.metered() == .read(true, from: "D-Bus NetworkManager Metered=guess-yes"))
            manager.stop()
            #expect(await inbox.next() == .changed)
            #expect(watcher.metered().reason?.contains("left the bus") == true, "\(watcher.metered())")
            watcher.stop()
        }

        @Test(
            "the bus restarted: every value says bus lost, the watcher reconnects with backoff, re-subscribes, re-reads"
        )
        func reconnects() async throws {
            let bus = try await PrivateBus()
            let daemon = try await Self.powerSaver(on: bus)
            defer { daemon.stop() }
            let watcher = try DesktopBusWatcher(address: bus.address, reconnectAfter: 20, reconnectAtMost: 200)
            defer { watcher.stop() }
            #expect(watcher.lowPowerMode().value == true)
            let inbox = EventInbox()
            try watcher.start(inbox.handler)

            await bus.kill()
            #expect(await inbox.next() == .changed)
            for reason in [watcher.lowPowerMode().reason, watcher.idleHint().reason, watcher.metered().reason] {
                #expect(reason?.hasPrefix("D-Bus system bus lost (") == true, "\(String(describing: reason))")
                #expect(reason?.hasSuffix("; reconnecting") == true)
            }
            #expect(watcher.unlockedSinceBoot().reason?.hasPrefix("D-Bus system bus lost") == true)
            // Attempts fail while the bus is down (each waits longer, up to 200 ms); nothing is said.
            try await Task.sleep(for: .milliseconds(300))
            #expect(watcher.lowPowerMode().reason?.hasPrefix("D-Bus system bus lost") == true)

            try await bus.restart()
            let restarted = try await FakeBusService.start(
                address: bus.address,
                name: Self.profiles.service,
                properties: [Self.profiles: .variant("s", .string("balanced"))]
            )
            defer { restarted.stop() }
            // Reconnected and read again: the new service's profile (the old value was cleared).
            var read = watcher.lowPowerMode()
            while read.value == nil, await inbox.next() == .changed { read = watcher.lowPowerMode() }
            #expect(read == .read(false, from: "D-Bus power-profiles-daemon ActiveProfile=balanced"))
            // Subscribed again: a change is pushed.
            inbox.drain()
            try restarted.set(Self.profiles, .variant("s", .string("power-saver")))
            #expect(await inbox.next() == .changed)
            #expect(watcher.lowPowerMode().value == true)
        }

        @Test(
            "a bus missing at start: every value says absent, its directory is watched, and it is read once the bus starts"
        )
        func absentAtStart() async throws {
            let bus = try await PrivateBus()
            await bus.kill()  // the socket's directory exists, the socket does not: dbus not started yet
            let watcher = try DesktopBusWatcher(address: bus.address, reconnectAfter: 20, reconnectAtMost: 200)
            defer { watcher.stop() }
            let absent = "D-Bus system bus absent (\(bus.directory)/bus does not exist); waiting for it"
            for reason in [watcher.lowPowerMode(), watcher.idleHint(), watcher.unlockedSinceBoot(), watcher.metered()]
                .map(\.reason)
            {
                #expect(reason == absent)
            }
            let inbox = EventInbox()
            try watcher.start(inbox.handler)
            #expect(await inbox.next(within: 0.2) == nil)  // nothing happens while it is absent

            try await bus.restart()
            let daemon = try await Self.powerSaver(on: bus)
            defer { daemon.stop() }
            var read = watcher.lowPowerMode()
            while read.value == nil, await inbox.next() == .changed { read = watcher.lowPowerMode() }
            #expect(read == .read(true, from: "D-Bus power-profiles-daemon ActiveProfile=power-saver"))
            // Subscribed: a change is pushed.
            inbox.drain()
            try daemon.set(Self.profiles, .variant("s", .string("balanced")))
            #expect(await inbox.next() == .changed)
            #expect(watcher.lowPowerMode().value == false)
        }

        @Test("no bus and no directory for it: every source unavailable with the reason, and start watches nothing")
        func noBus() throws {
            let watcher = try DesktopBusWatcher(address: "unix:path=/nonexistent/bg-test-bus")
            let reason = try #require(watcher.lowPowerMode().reason)
            #expect(reason.hasPrefix("no D-Bus system bus (unix:path=/nonexistent/bg-test-bus: connect: "))
            #expect(reason.hasSuffix("; not waited for: /nonexistent does not exist"))
            #expect(watcher.unlockedSinceBoot().reason == reason)
            try watcher.start { _ in }
            watcher.stop()
        }

        @Test("the machine's sources read the bus: Low Power Mode's source names power-profiles-daemon")
        func machineSources() async throws {
            let bus = try await PrivateBus()
            let daemon = try await Self.powerSaver(on: bus)
            defer { daemon.stop() }
            let sources = DeviceSources.machine(busAddress: bus.address)
            defer {
                for watcher in sources.conditionWatchers { watcher.stop() }
            }
            let reading = sources.reading(overrides: .none)
            #expect(
                reading.lowPowerMode == Sourced(true, .probe("D-Bus power-profiles-daemon ActiveProfile=power-saver"))
            )
            #expect(reading.conditions.lowPowerMode)
            #expect(
                reading.lines.contains("low-power: on (probe: D-Bus power-profiles-daemon ActiveProfile=power-saver)")
            )
        }
    }
}
