// The time to recompute the runnable set after a device condition changes (the charger is
// plugged in), with 100,000 pending processing requests across 10,000 apps.
//
// Side by side in one run: the core's condition-indexed queue, and the floor it replaces: a
// full scan of every pending request checking whether it may run now. Each operation is one
// `.setDevice` event (plugged in, then unplugged on the next operation), so what is measured is
// the whole event: releasing due requests from the groups the change opened, examining their
// apps, delivering what may run, and computing the next wake-up.

import BackgroundCore
import Benchmark

/// A system with 10,000 suspended apps, each with 10 processing requests that need external
/// power, due over a week (one every 6 s from T+1h); the device is idle on battery.
final class SchedulerFixture: @unchecked Sendable {
    static let appCount = 10_000
    static let requestsPerApp = 10

    var core: BackgroundSystem
    var buffer: [Effect] = []
    var now: Instant = .zero
    var pluggedIn = false
    let battery = DeviceConditions(powerSource: .battery, batteryLevel: 0.9, network: .wifi, isIdle: true)
    let charger = DeviceConditions(powerSource: .externalPower, batteryLevel: 0.9, network: .wifi, isIdle: true)
    /// The same requests as a flat list, for the full-scan floor.
    var flat: [TaskRequest] = []

    init() {
        core = BackgroundSystem(policy: .iOS, device: battery)
        buffer.reserveCapacity(64)
        for appNumber in 0..<Self.appCount { install(appNumber) }
        now = .seconds(3600 + 30)  // a few requests are due, but the device is on battery
        send(.tick)
    }

    private func install(_ appNumber: Int) {
        let app = AppID("com.example.app\(appNumber)")
        let identifiers = (0..<Self.requestsPerApp).map { "com.example.app\(appNumber).task\($0)" }
        send(.install(AppManifest(bundleIdentifier: app, permittedTaskIdentifiers: identifiers, backgroundModes: [.processing])))
        send(.launch(app, .foreground))
        send(.activate(app))
        for identifier in identifiers { send(.registerTaskHandler(app, identifier: identifier)) }
        send(.finishLaunching(app))
        for (offset, identifier) in identifiers.enumerated() {
            let sequence = appNumber * Self.requestsPerApp + offset
            let request = TaskRequest(
                identifier: identifier, kind: .processing, earliestBegin: .seconds(3600 + sequence * 6),
                requiresExternalPower: true)
            flat.append(request)
            send(.submitTaskRequest(app, request))
        }
        send(.deactivate(app))
        send(.enterBackground(app))
        send(.didEnterBackgroundReturned(app))
    }

    func send(_ event: Event) {
        buffer.removeAll(keepingCapacity: true)
        try! core.handle(event, at: now, into: &buffer)
    }

    /// One condition change: plug in, or unplug.
    func toggleCharger() {
        pluggedIn.toggle()
        now += .milliseconds(1)
        send(.setDevice(pluggedIn ? charger : battery))
    }

    /// The floor: decide for every pending request whether it may run now.
    func fullScan() -> Int {
        pluggedIn.toggle()
        let device = pluggedIn ? charger : battery
        var runnable = 0
        for request in flat {
            let due = (request.earliestBegin ?? .zero) <= now
            let powered = !request.requiresExternalPower || device.powerSource == .externalPower
            if due && powered && device.isIdle { runnable += 1 }
        }
        return runnable
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        maxDuration: .seconds(5),
        maxIterations: 5_000
    )

    let fixture = SchedulerFixture()

    Benchmark("Charger plugged in: condition-indexed queue (100k requests, 10k apps)") { benchmark in
        for _ in benchmark.scaledIterations {
            fixture.toggleCharger()
            blackHole(fixture.buffer.count)
        }
    }

    Benchmark("Charger plugged in: floor, full scan of 100k requests") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(fixture.fullScan())
        }
    }
}
