public import BackgroundCore
import Foundation

/// A scenario run to its end on a ``Simulator``: the simulator to inspect, and the scenario's
/// expectations checked.
///
/// ```swift
/// let scenario = try Scenario.load(contentsOf: URL(fileURLWithPath: "examples/news-refresh-day.json"))
/// let run = try ScenarioRun(scenario)
/// print(run.summary)
/// #expect(run.passed, "\(run.failures)")
/// ```
@MainActor
public final class ScenarioRun {
    /// The scenario.
    public let scenario: Scenario
    /// The simulator after the run: its events, reports, task runs and violations.
    public let simulator: Simulator
    /// The expectations that did not hold, in words; empty when all held.
    public private(set) var failures: [String] = []

    /// Runs a scenario to its end.
    ///
    /// - Parameters:
    ///   - scenario: The scenario.
    ///   - checksInvariants: Whether to check the invariants after every event (the default).
    ///   - recordSystemEvents: Whether to keep every event handed to the system
    ///     (``Simulator/systemEvents``).
    ///   - encodesMessages: Whether every event and answer crosses the encoding boundary
    ///     (``Simulator/Configuration/encodesMessages``); `nil` leaves it to the environment.
    ///   - prepare: Runs on the simulator before anything happens: add invariants of your own.
    /// - Throws: ``ScenarioError`` if an app's manifest is not a valid one.
    public init(
        _ scenario: Scenario,
        checksInvariants: Bool = true,
        recordSystemEvents: Bool = false,
        encodesMessages: Bool? = nil,
        prepare: (Simulator) -> Void = { _ in }
    ) throws(ScenarioError) {
        self.scenario = scenario
        var configuration = Self.configuration(of: scenario, checksInvariants: checksInvariants)
        configuration.recordsSystemEvents = recordSystemEvents
        if let encodesMessages { configuration.encodesMessages = encodesMessages }
        self.simulator = Simulator(configuration: configuration)
        // Scenario apps never use the main queue nor open a file, and a fault is part of the run's log.
        simulator.servesAppThreads = false
        simulator.writesDownloadedFiles = false
        simulator.onFault = { _ in }
        prepare(simulator)
        if scenario.device.bandwidth != nil || scenario.device.latency != nil {
            simulator.setNetwork(bandwidth: scenario.device.bandwidth, latency: scenario.device.latency)
        }
        for (index, app) in scenario.apps.enumerated() {
            let manifest = try Self.manifest(of: app, path: "apps[\(index)].manifest")
            let behaviour = ScenarioAppBehaviour(app: app, simulator: simulator)
            simulator.install(AppID(app.id), manifest: manifest) { process in behaviour.launch(process) }
            if !app.backgroundAppRefresh { simulator.device.setBackgroundAppRefresh(false, for: AppID(app.id)) }
        }
        scheduleTimeline()
        simulator.run(until: Instant(offset: scenario.duration))
        failures = checkExpectations()
    }

    /// Whether every expectation held and no invariant was violated beyond what the scenario
    /// expects.
    public var passed: Bool {
        failures.isEmpty && (scenario.expectations?.violations != nil || simulator.violations.isEmpty)
    }

    static func configuration(of scenario: Scenario, checksInvariants: Bool) -> Simulator.Configuration {
        let device = scenario.device
        let state = DeviceState(
            batteryLevel: device.batteryLevel,
            powerSource: device.power == .external ? .externalPower : .battery,
            network: device.network.conditionsNetwork,
            isMetered: device.isMetered,
            lowPowerMode: device.lowPowerMode,
            isLocked: device.locked,
            isIdle: device.idle,
            backgroundAppRefresh: device.backgroundAppRefresh
        )
        return Simulator.Configuration(
            seed: scenario.seed,
            policy: scenario.policy.systemPolicy,
            start: scenario.start.date,
            utcOffset: scenario.start.utcOffset,
            device: state,
            checksInvariants: checksInvariants
        )
    }

    /// The app's manifest from the scenario's JSON object; the bundle identifier is the app's id.
    static func manifest(of app: Scenario.App, path: String) throws(ScenarioError) -> AppManifest {
        var keys = app.manifest ?? [:]
        if let declared = keys["CFBundleIdentifier"], declared != .string(app.id) {
            throw ScenarioError(
                code: .conflict,
                path: path + ".CFBundleIdentifier",
                message: "the manifest names \(declared.serialized()), but the app's id is \"\(app.id)\"; leave it out"
            )
        }
        keys["CFBundleIdentifier"] = .string(app.id)
        let object = JSONValue.object(keys)
        if let known = manifests[object] { return known }
        let manifest: AppManifest
        do {
            manifest = try AppManifest(data: object.serializedData(), format: .json)
        } catch {
            throw ScenarioError(code: .invalidValue, path: path, message: "not a valid manifest: \(error)")
        }
        if manifests.count >= Self.manifestsKept { manifests.removeAll(keepingCapacity: true) }
        manifests[object] = manifest
        return manifest
    }

    /// Manifests already read, by their keys: reading one (serialized, then parsed as the
    /// system parses an app's) is the same work for the same keys, and the fuzzer's generated
    /// apps have few different manifests (it took 3 % of a fuzz seed). At most
    /// ``manifestsKept``: a process that runs many scenarios of its own keeps a bounded few.
    private static var manifests: [JSONValue: AppManifest] = [:]
    private static let manifestsKept = 64

    /// Puts every occurrence of every step on the simulator's clock, jittered from the seed;
    /// occurrences at the same instant run in timeline order.
    private func scheduleTimeline() {
        for step in scenario.timeline {
            for var offset in scenario.occurrences(of: step) {
                if let jitter = step.jitter, jitter > .zero {
                    let span = ScenarioTime.milliseconds(of: jitter)
                    offset += .milliseconds(Int64.random(in: 0..<Int64(span), using: &simulator.random))
                }
                guard offset < scenario.duration else { continue }
                simulator.schedule(at: Instant(offset: offset), .driver({ [unowned self] in self.perform(step) }))
            }
        }
    }

    private func perform(_ step: Scenario.Step) {
        if let note = step.note { simulator.note(note) }
        switch step.event {
        case .user(.open(let app)): simulator.user.open(AppID(app))
        case .user(.home): simulator.user.goHome()
        case .user(.forceQuit(let app)): simulator.user.forceQuit(AppID(app))
        case .user(.lock): simulator.user.lock()
        case .user(.unlock), .device(.unlock): simulator.user.unlock()
        case .device(.plugIn): simulator.device.plugIn()
        case .device(.unplug): simulator.device.unplug()
        case .device(.reboot): simulator.device.reboot()
        case .device(.appBackgroundAppRefresh(let app, let enabled)):
            simulator.device.setBackgroundAppRefresh(enabled, for: AppID(app))
        case .device(.change(let change)): apply(change)
        case .device(.push(let app)): simulator.push(AppID(app))
        case .device(.memory(let pressure)): simulator.reportMemoryPressure(pressure)
        }
    }

    private func apply(_ change: Scenario.Step.DeviceChange) {
        let device = simulator.device
        // The network's speed first, so that transfers a network change starts run at it.
        if change.bandwidth != nil || change.latency != nil {
            simulator.setNetwork(bandwidth: change.bandwidth, latency: change.latency)
        }
        if let level = change.batteryLevel { device.setBatteryLevel(level) }
        if let network = change.network {
            device.setNetwork(network.conditionsNetwork, metered: change.metered)
        } else if let metered = change.metered {
            device.setNetwork(simulator.deviceNow.network, metered: metered)
        }
        if let on = change.lowPowerMode { device.setLowPowerMode(on) }
        if let idle = change.idle { device.setIdle(idle) }
        if let on = change.backgroundAppRefresh { device.setBackgroundAppRefresh(on) }
    }
}

extension Scenario.Device.Network {
    var conditionsNetwork: DeviceConditions.Network {
        switch self {
        case .wifi: return .wifi
        case .cellular: return .cellular
        case .offline: return .none
        }
    }
}

extension Scenario.Policy {
    /// The system's numbers for this policy.
    public var systemPolicy: SystemPolicy {
        switch self {
        case .iOS: return .iOS
        case .iOS12: return .iOS12
        case .server(let grace): return .server(grace: grace)
        }
    }
}
