import ArgumentParser
import BackgroundExecution
import BackgroundPosix
import BackgroundStore
import CommandOutput
import Foundation

/// `bgctl scheduler-example`: a service that schedules background tasks with BGTaskScheduler.
struct SchedulerExampleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler-example",
        abstract: "A small service that schedules a refresh and a processing task and accepts bgctl's debug commands.",
        discussion: """
            Registers com.example.scheduler.refresh (BGAppRefreshTaskRequest, not before \
            --refresh-delay seconds) and com.example.scheduler.cleanup (BGProcessingTaskRequest \
            needing external power), prints 'ready pid <pid>', and runs until SIGTERM. Try \
            `bgctl why --app com.example.scheduler` and \
            `bgctl simulate-launch com.example.scheduler.cleanup --app com.example.scheduler`.
            """
    )

    @Option(parsing: .unconditional, help: "Seconds before the refresh may run.")
    var refreshDelay: Double = 3600

    @Option(help: "The control directory for debug commands.")
    var controlDirectory: String?

    @Option(help: "An SQLite store for pending requests, so they survive restarts.")
    var store: String?

    @Flag(help: "Open --store even if it is a symbolic link (refused by default).")
    var followStoreLink = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try validateSeconds(refreshDelay, "--refresh-delay", 0...(366 * 86_400))
    }

    func run() async throws {
        // Checked before anything starts (and created 0700) by acceptDebugCommands, component by component, without
        // following links: a plain existence check here would follow them.
        let controlURL = controlDirectory.map { URL(fileURLWithPath: $0).standardizedFileURL }
        if let controlDirectory, let controlURL {
            do {
                _ = try SecureDirectory.open(controlURL.path, access: .privateToOwner, creating: true)
            } catch {
                throw CommandFailure(.cannotCreateOutput, controlDirectory, error.description)
            }
        }
        let manifest = AppManifest(
            bundleIdentifier: "com.example.scheduler",
            permittedTaskIdentifiers: ["com.example.scheduler.refresh", "com.example.scheduler.cleanup"],
            backgroundModes: [.fetch, .processing]
        )
        // A laptop on battery, in use: the processing task must wait for power and idleness.
        let device = DeviceConditions(powerSource: .battery, batteryLevel: 0.6, network: .wifi, isIdle: false)
        // A store it cannot write is refused here, before the service starts (exit 77).
        let persistence: BackgroundStore?
        do {
            persistence = try store.map { path throws(StoreError) in
                try BackgroundStore(path: path, followsSymbolicLinks: followStoreLink)
            }
        } catch {
            throw CommandFailure(store: error)
        }
        let system = EmbeddedSystem(
            configuration: .init(
                app: manifest.bundleIdentifier,
                policy: .server(grace: .seconds(10)),
                logger: logging.logger(label: "scheduler-example"),
                manifest: manifest,
                store: persistence,
                device: device,
                launchCompletion: .explicit
            )
        )
        system.moveToBackground(onSignals: [SIGTERM, SIGINT])
        do {
            try system.acceptDebugCommands(in: controlURL)
        } catch {
            throw CommandFailure(.cannotCreateOutput, controlDirectory ?? "the control directory", error.message)
        }
        UIApplication.bootstrap(system)
        let scheduler = BGTaskScheduler.shared
        for identifier in ["com.example.scheduler.refresh", "com.example.scheduler.cleanup"] {
            scheduler.register(forTaskWithIdentifier: identifier, using: nil) { task in
                print("ran \(task.identifier)", terminator: "\n")
                fflush(nil)
                task.setTaskCompleted(success: true)
                // The completion is in the store when setTaskCompleted returns: a supervisor (or a
                // test about to kill -9) waits for this line, not for the one above.
                print("completed \(task.identifier)", terminator: "\n")
                fflush(nil)
            }
        }
        system.finishLaunching()
        let refresh = BGAppRefreshTaskRequest(identifier: "com.example.scheduler.refresh")
        refresh.earliestBeginDate = Date(timeIntervalSinceNow: refreshDelay)
        try scheduler.submit(refresh)
        let cleanup = BGProcessingTaskRequest(identifier: "com.example.scheduler.cleanup")
        cleanup.requiresExternalPower = true
        try scheduler.submit(cleanup)
        print("ready pid \(ProcessInfo.processInfo.processIdentifier)", terminator: "\n")
        fflush(nil)
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
