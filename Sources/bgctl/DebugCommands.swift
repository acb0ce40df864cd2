import ArgumentParser
import BackgroundExecution
import CommandOutput

/// `bgctl why`: why hasn't my task run, and when could it?
struct WhyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Explain why a pending task request has not run, and the earliest it could.",
        discussion: """
            With --pid, asks the running app for the eligibility of a pending request: every \
            unmet condition (device conditions such as external power, network or idle; timed \
            ones such as earliestBeginDate, rate limiting or the budget), the deciding factor, \
            and the earliest possible run. With --store instead, answers from the app's store \
            while it is not running, for the device described by --power, --network and --idle. \
            Without an identifier, explains every pending request. Exit status 1 when an \
            identifier has no pending request (docs/exit-codes.md). --json (with --store) prints \
            the explanation as JSON.
            """
    )

    @Argument(help: "The task identifier (default: every pending request).")
    var identifier: String?

    @Option(help: "The app's bundle identifier.")
    var app: String

    @Option(help: "The process identifier of the running app.")
    var pid: Int32?

    @Option(help: "The app's store (SQLite), to explain without a running process. Opened read-only.")
    var store: String?

    @Flag(help: "Open --store even if it is a symbolic link (refused by default).")
    var followStoreLink = false

    @OptionGroup var device: DeviceOptions

    @Option(help: "The app's control directory (default: the embedded system's default for --app).")
    var controlDirectory: String?

    @OptionGroup var format: OutputOptions

    func run() throws {
        let command = DebugCommand(action: .why, identifier: identifier)
        if let pid {
            // Partial: a running app answers in text over today's control channel; --json needs
            // the structured answers of the redesigned channel (hardening issue).
            if format.json { throw ValidationError("--json needs --store; a running app (--pid) answers in text") }
            let live = try LiveAppOptions.with(app: app, pid: pid, controlDirectory: controlDirectory)
            return try ControlClient.finish(ControlClient.send(command, to: live))
        }
        guard let store else {
            throw ValidationError("give --pid for a running app, or --store for one that is not running")
        }
        let result = try OfflineExplainer.explain(
            command,
            app: AppID(app),
            store: store,
            followsSymbolicLinks: followStoreLink,
            device: device.conditions
        )
        try format.emit(result)
        if result.hasUnknownIdentifier { throw ExitCode(ExitStatus.negativeAnswer.rawValue) }
    }
}

/// `bgctl status`: the app's state, pending requests and running tasks.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a running app's state, pending requests and running tasks."
    )

    @OptionGroup var live: LiveAppOptions

    func run() throws {
        try ControlClient.finish(ControlClient.send(DebugCommand(action: .status), to: live))
    }
}

/// A debugger hook run against a live app: one task identifier, one action.
protocol TaskHookCommand: ParsableCommand {
    static var action: DebugCommand.Action { get }
    var identifier: String { get }
    var live: LiveAppOptions { get }
}

extension TaskHookCommand {
    func run() throws {
        let command = DebugCommand(action: Self.action, identifier: identifier)
        try ControlClient.finish(ControlClient.send(command, to: live))
    }
}

/// `bgctl simulate-launch`: `_simulateLaunchForTaskWithIdentifier:` for a running app.
struct SimulateLaunchCommand: TaskHookCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-launch",
        abstract: "Run a pending task request now, whatever the conditions (the debugger's simulate-launch hook)."
    )
    static let action = DebugCommand.Action.simulateLaunch

    @Argument(help: "The task identifier.")
    var identifier: String

    @OptionGroup var live: LiveAppOptions
}

/// `bgctl simulate-expiration`: `_simulateExpirationForTaskWithIdentifier:` for a running app.
struct SimulateExpirationCommand: TaskHookCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-expiration",
        abstract: "Expire a running task now (the debugger's simulate-expiration hook)."
    )
    static let action = DebugCommand.Action.simulateExpiration

    @Argument(help: "The task identifier.")
    var identifier: String

    @OptionGroup var live: LiveAppOptions
}
