import ArgumentParser
import BackgroundControl
import BackgroundExecution
import CommandOutput
import Foundation

/// `bgctl why`: why hasn't my task run, and when could it?
struct WhyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Explain why a pending task request has not run, and the earliest it could.",
        discussion: """
            Without --store or --scenario, asks the running app (over its control socket) for the eligibility of a pending request: every \
            unmet condition (device conditions such as external power, network or idle; timed \
            ones such as earliestBeginDate, rate limiting or the budget), the deciding factor, \
            and the earliest possible run. With --store instead, answers from the app's store \
            while it is not running, for the device described by --power, --network and --idle. \
            With --scenario, runs a simulator scenario (to --at, or its end) and answers from it. \
            Without an identifier, explains every pending request. With --store, the app's \
            waiting background transfers are explained too, named <session>#<task> (kind \
            transfer; --expensive-network and --low-data-mode describe their network). \
            --history adds each \
            identifier's recent runs and what held them back, the changes that would let a \
            waiting request run (computed on a copy of the system), and a likely time range \
            (the project's own estimate). --json prints the same as JSON; --bundle FILE writes \
            a report for a bug tracker. Exit codes: 0 answered, 1 unknown task identifier, \
            64 usage error, 65 malformed store or scenario, 66 missing input, 69 app not \
            reachable, 73 cannot create the bundle.
            """
    )

    @Argument(help: "The task identifier (default: every pending request).")
    var identifier: String?

    @Option(help: "The app's bundle identifier (with --scenario: default its first app).")
    var app: String?

    @Option(help: "The process identifier of the running app, when several run (chooses its control socket).")
    var pid: Int32?

    @Option(help: "The app's store (SQLite), to explain without a running process. Opened read-only.")
    var store: String?

    @Flag(help: "Open --store even if it is a symbolic link (refused by default).")
    var followStoreLink = false

    @Option(help: "A simulator scenario (JSON) to run and explain, such as examples/overnight-db-cleanup.json.")
    var scenario: String?

    @Option(
        help:
            "With --scenario: stop then and explain: a time as scenarios write it (21:00, day 2 07:00) or a duration from the start (14h)."
    )
    var at: String?

    @Flag(help: "Add the history, the what-ifs and the likely range.")
    var history = false

    @OptionGroup var format: OutputOptions

    @Option(help: "Write a report for a bug tracker to this JSON file (with --store or --scenario).")
    var bundle: String?

    @Option(help: "With --bundle: the app's Info.plist for the doctor (default: the manifest the system holds).")
    var manifest: String?

    @Option(parsing: .upToNextOption, help: "With --bundle: the app's Swift sources for the doctor.")
    var sources: [String] = []

    @Option(help: "With --bundle: the directory of the app's termination reports (*.json).")
    var reports: String?

    @OptionGroup var device: DeviceOptions

    @Option(help: "The app's control directory (default: the embedded system's default for --app).")
    var controlDirectory: String?

    func validate() throws {
        let offline = [store != nil, scenario != nil].filter { $0 }.count
        guard offline <= 1, pid == nil || offline == 0 else {
            throw ValidationError(
                "give --store (an app that is not running), --scenario, or neither to ask the running app (--pid chooses its process)"
            )
        }
        if scenario == nil && app == nil { throw ValidationError("give --app") }
        if offline == 0 && bundle != nil {
            // The bundle gathers the manifest, the doctor and the reports from files; a running
            // app answers over its socket (`--json` works there too).
            throw ValidationError("--bundle needs --store or --scenario")
        }
        if at != nil && scenario == nil { throw ValidationError("--at needs --scenario") }
    }

    @MainActor
    func run() async throws {
        if store == nil, scenario == nil, let app {
            let command = DebugCommand(
                action: history ? .whyWithHistory : .why,
                identifier: identifier,
                json: format.json
            )
            let live = try LiveAppOptions.with(app: app, pid: pid, controlDirectory: controlDirectory)
            return try ControlClient.run(command, options: live)
        }
        if let bundle { try PathCheck.creatableFile(bundle) }
        if let scenario { try PathCheck.readableFile(scenario) }
        if let store, scenario == nil, bundle == nil, !history {
            let result = try OfflineExplainer.explain(
                DebugCommand(action: .why, identifier: identifier),
                app: AppID(app ?? ""),
                store: store,
                followsSymbolicLinks: followStoreLink,
                device: device.conditions,
                network: device.transferNetwork
            )
            try format.emit(result)
            if result.hasUnknownIdentifier { throw ExitCode(ExitStatus.negativeAnswer.rawValue) }
            return
        }
        let subject: ExplainedSystem
        if let scenario {
            subject = try ExplainedSystem.scenario(scenario, app: app, at: at)
        } else {
            subject = try ExplainedSystem.store(
                store ?? "",
                app: AppID(app ?? ""),
                device: device.conditions,
                network: device.transferNetwork,
                followsSymbolicLinks: followStoreLink
            )
        }
        try answer(subject)
    }

    /// Prints the answer from a restored or simulated system (or writes the bundle).
    private func answer(_ subject: ExplainedSystem) throws {
        if let bundle {
            try WhyBundle(subject: subject, manifest: manifest, sources: sources, reports: reports).write(to: bundle)
            print("bgctl why: wrote \(bundle)")
            return
        }
        let identifiers = identifier.map { [$0] } ?? subject.identifiers(includingHistory: history)
        if history {
            if format.json {
                print(try subject.json(identifiers: identifiers, history: true))
            } else {
                print(
                    identifiers.isEmpty
                        ? "nothing pending and no run recorded\n"
                        : subject.text(identifiers: identifiers, history: true),
                    terminator: ""
                )
            }
        } else {
            try format.emit(subject.whyResult(identifiers: identifiers))
        }
        if let identifier, !subject.knows(identifier) {
            throw ExitCode(ExitStatus.negativeAnswer.rawValue)
        }
    }
}

/// `bgctl status`: the app's state, pending requests and running tasks.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a running app's state, pending requests and running tasks."
    )

    @OptionGroup var live: LiveAppOptions
    @OptionGroup var format: OutputOptions

    func run() throws {
        try ControlClient.run(DebugCommand(action: .status, json: format.json), options: live)
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
        try ControlClient.run(command, options: live)
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
