import ArgumentParser
import BackgroundControl
import BackgroundExecution
import BackgroundStore
import CommandOutput
import Foundation

/// The device `bgctl why --store` assumes, from flags. Unknown values are usage errors that
/// list the valid ones (`--power batery` is not read as external power).
struct DeviceOptions: ParsableArguments {
    enum Power: String, ExpressibleByArgument, CaseIterable {
        case battery, external
    }

    enum Network: String, ExpressibleByArgument, CaseIterable {
        case none, wifi, cellular
    }

    @Option(help: "Power source: battery or external.")
    var power: Power = .external

    @Option(help: "Battery level, 0 to 1.")
    var batteryLevel: Double = 1

    @Option(help: "Network: none, wifi or cellular.")
    var network: Network = .wifi

    @Option(help: "Whether the device is idle (nobody using it): true or false.")
    var idle: Bool = true

    @Flag(help: "Low Power Mode is on.")
    var lowPowerMode = false

    @Flag(help: "The network is expensive (a hotspot; cellular always is): for transfers.")
    var expensiveNetwork = false

    @Flag(help: "The network is constrained (Low Data Mode): for transfers.")
    var lowDataMode = false

    func validate() throws {
        guard batteryLevel.isFinite, (0...1).contains(batteryLevel) else {
            throw ValidationError("--battery-level must be a number from 0 to 1, not \(batteryLevel)")
        }
    }

    var conditions: DeviceConditions {
        DeviceConditions(
            powerSource: power == .battery ? .battery : .externalPower,
            batteryLevel: batteryLevel,
            lowPowerMode: lowPowerMode,
            network: DeviceConditions.Network(rawValue: network.rawValue) ?? .none,
            isIdle: idle,
            unlockedSinceBoot: true
        )
    }

    /// The network as background transfers see it.
    var transferNetwork: TransferNetwork {
        TransferNetwork(network: conditions.network, isExpensive: expensiveNetwork, isConstrained: lowDataMode)
    }
}

/// Answers `bgctl why` from an app's store while the app is not running: the store is opened
/// read-only (nothing is created or written), its state is restored into a fresh system at the
/// present wall-clock time without dispatching anything, and the system explains. A request
/// that would run now is explained as such, not launched away.
enum OfflineExplainer {
    static func explain(
        _ command: DebugCommand,
        app: AppID,
        store path: String,
        followsSymbolicLinks: Bool = false,
        device: DeviceConditions,
        network: TransferNetwork? = nil
    ) throws -> WhyResult {
        let subject = try ExplainedSystem.store(
            path,
            app: app,
            device: device,
            network: network,
            followsSymbolicLinks: followsSymbolicLinks
        )
        return subject.whyResult(
            identifiers: command.identifier.map { [$0] } ?? subject.identifiers(includingHistory: false)
        )
    }
}
