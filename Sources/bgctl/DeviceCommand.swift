import ArgumentParser
import BackgroundDevice
import BackgroundProtocol
import CommandOutput

/// `bgctl device`: the device's conditions as `backgroundd` reads them, and the developer's
/// overrides of its probes.
///
/// The conditions live in the daemon (it reads the machine's probes); an embedded app uses the
/// conditions its own code configures (`EmbeddedSystem.Configuration.device`, `setDevice`), which
/// `bgctl status` shows with their sources but `bgctl device` does not change
/// (docs/device-probes.md).
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "The device's conditions in backgroundd, with their sources; override them in developer mode.",
        discussion: """
            Keys: \(DeviceOverrides.Key.allCases.map(\.rawValue).joined(separator: ", ")). Overrides need \
            backgroundd --developer-mode. Exit codes: 0 done, 64 a bad key or value, 69 the daemon \
            is not running, 77 not in developer mode.
            """,
        subcommands: [Show.self, Set.self, Clear.self],
        defaultSubcommand: Show.self
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Each condition with its source (probe, default, override), memory pressure, overrides."
        )
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.deviceConditions, options: daemon, json: format.json) }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Override probes: power=battery battery=15 network=none low-power=on (key=probe: back to the probe).",
            discussion: """
                power: battery, external; battery: 0...100; network: none, wifi, cellular; metered, \
                constrained, idle, unlocked: yes, no; low-power (or lowpower): on, off. Logged by the \
                daemon and recorded in its journal (bgctl daemon timeline).
                """
        )
        @Argument(help: "key=value pairs.") var assignments: [String] = []
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions

        func run() throws {
            do {
                _ = try DeviceOverrides.none.applying(assignments)
            } catch {
                throw CommandFailure(.usage, "device", error.description)
            }
            try DaemonClient.run(.overrideDevice(assignments), options: daemon, json: format.json)
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every condition back to its probe.")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.clearDeviceOverrides, options: daemon, json: format.json) }
    }
}
