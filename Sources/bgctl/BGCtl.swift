import ArgumentParser

/// `bgctl`: inspect, explain, simulate and control the background execution system.
@main
struct BGCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgctl",
        abstract: "The iOS background execution system for Linux: demos, inspection and control.",
        subcommands: [
            DemoCommand.self, WhyCommand.self, StatusCommand.self, SimulateLaunchCommand.self,
            SimulateExpirationCommand.self, ShutdownExampleCommand.self, SchedulerExampleCommand.self,
            SimulateCommand.self, FuzzCommand.self,
        ]
    )
}
