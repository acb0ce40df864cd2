import ArgumentParser
import CommandOutput

/// `bgctl`: inspect, explain, simulate and control the background execution system.
@main
struct BGCtl: AsyncParsableCommand {
    /// The version `bgctl --version` prints.
    static let version = ProjectVersion.current

    static let configuration = CommandConfiguration(
        commandName: "bgctl",
        abstract: "The iOS background execution system for Linux: demos, inspection and control.",
        discussion: """
            Exit status: one table for every command (docs/exit-codes.md): 0 success, 1 a \
            negative answer, 64 usage, 65 bad input, 66 input missing, 69 app not reachable, \
            70 internal, 73 cannot create output, 74 I/O error, 75 timed out, 77 permission \
            denied. Errors are one line: bgctl <command>: <what>: <why>.
            """,
        version: version,
        subcommands: [
            DemoCommand.self, WhyCommand.self, StatusCommand.self, SimulateLaunchCommand.self,
            SimulateExpirationCommand.self, ShutdownExampleCommand.self, SchedulerExampleCommand.self,
            SimulateCommand.self, FuzzCommand.self, DoctorLauncher.self, DaemonCommand.self, PushCommand.self,
            DeviceCommand.self,
        ]
    )

    static func main() async {
        await CommandEntry.main(BGCtl.self)
    }
}
