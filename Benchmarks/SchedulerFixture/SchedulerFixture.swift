// The system the scheduler benchmarks share (SchedulerRecompute, SchedulerBench): many suspended
// apps with pending processing requests that need external power, and the same requests as a
// flat list for the floor, a full scan of every request.

import BackgroundCore

/// A system with `appCount` suspended apps, each with `requestsPerApp` processing requests that
/// need external power, due one every 6 s from T+1 h across all apps (a week at 100,000: app `a`'s
/// requests are the `a`-th minute's ten); the device is idle, on battery and Wi-Fi, at T+1 h 30 s,
/// where a few are due but the device blocks them.
public final class SchedulerFixture: @unchecked Sendable {
    /// When the first request is due.
    public static let firstDue: Instant = .seconds(3600)
    /// The time between one request's earliest begin and the next one's.
    public static let spacing: Duration = .seconds(6)

    public let appCount: Int
    public let requestsPerApp: Int
    public private(set) var core: BackgroundSystem
    /// The effects of the last event (a buffer reused from event to event).
    public private(set) var buffer: [Effect] = []
    public private(set) var now: Instant = .zero
    public private(set) var pluggedIn = false
    public let battery = DeviceConditions(powerSource: .battery, batteryLevel: 0.9, network: .wifi, isIdle: true)
    public let charger = DeviceConditions(powerSource: .externalPower, batteryLevel: 0.9, network: .wifi, isIdle: true)
    /// The same requests as a flat list, for the full-scan floor.
    public private(set) var flat: [TaskRequest] = []

    public init(apps appCount: Int = 10_000, requestsPerApp: Int = 10) {
        self.appCount = appCount
        self.requestsPerApp = requestsPerApp
        core = BackgroundSystem(policy: .iOS, device: battery)
        buffer.reserveCapacity(64)
        flat.reserveCapacity(appCount * requestsPerApp)
        for appNumber in 0..<appCount { install(appNumber) }
        now = Self.firstDue + .seconds(30)  // a few requests are due, but the device is on battery
        send(.tick)
    }

    private func install(_ appNumber: Int) {
        let app = AppID("com.example.app\(appNumber)")
        let identifiers = (0..<requestsPerApp).map { "com.example.app\(appNumber).task\($0)" }
        let manifest = AppManifest(
            bundleIdentifier: app,
            permittedTaskIdentifiers: identifiers,
            backgroundModes: [.processing]
        )
        send(.install(manifest))
        send(.launch(app, .foreground))
        send(.activate(app))
        for identifier in identifiers { send(.registerTaskHandler(app, identifier: identifier)) }
        send(.finishLaunching(app))
        for (offset, identifier) in identifiers.enumerated() {
            let sequence = appNumber * requestsPerApp + offset
            let request = TaskRequest(
                identifier: identifier,
                kind: .processing,
                earliestBegin: Self.firstDue + Self.spacing * sequence,
                requiresExternalPower: true
            )
            flat.append(request)
            send(.submitTaskRequest(app, request))
        }
        send(.deactivate(app))
        send(.enterBackground(app))
        send(.didEnterBackgroundReturned(app))
    }

    /// Hands the core one event at the current instant.
    public func send(_ event: Event) {
        buffer.removeAll(keepingCapacity: true)
        try! core.handle(event, at: now, into: &buffer)
    }

    /// Moves the clock on by `step`, then plugs the charger in, or unplugs it: one event.
    public func toggleCharger(after step: Duration) {
        setCharger(!pluggedIn, at: now + step)
    }

    /// Plugs the charger in or unplugs it at `instant`: one event.
    public func setCharger(_ pluggedIn: Bool, at instant: Instant) {
        self.pluggedIn = pluggedIn
        now = max(now, instant)
        send(.setDevice(pluggedIn ? charger : battery))
    }

    /// The wake-up the core asked for: when it needs a tick, if ever.
    public var wakeup: Instant? { core.nextDeadline }

    /// The shell's timer fires: a tick at `instant`.
    public func tick(at instant: Instant) {
        now = max(now, instant)
        send(.tick)
    }

    /// The app reports a task it was handed completed (successfully).
    public func complete(_ app: AppID, _ run: TaskRunID) {
        send(.completeTask(app, run, success: true))
    }

    /// Moves the clock on by `step` without an event (nothing asked for a wake-up).
    public func idle(for step: Duration) {
        now += step
    }

    /// The floor: decides for every pending request whether it may run now, on a charger or on
    /// battery, and returns how many may.
    public func fullScan(pluggedIn: Bool) -> Int {
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
