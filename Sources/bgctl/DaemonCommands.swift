import ArgumentParser
import BackgroundCore
import BackgroundExecution
import BackgroundProtocol
import BackgroundSimulator
import CommandOutput
import Foundation

/// `bgctl daemon`: the commands that talk to `backgroundd`.
struct DaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Inspect and control backgroundd: apps, assertions, tasks, the foreground, logs and the timeline.",
        discussion: "Every command takes --json. Protocol and exit codes: docs/daemon-protocol.md, docs/exit-codes.md.",
        subcommands: [
            Status.self, Apps.self, Assertions.self, Tasks.self, Why.self, Open.self, Home.self, ForceQuit.self,
            SimulateLaunch.self, SimulateExpiration.self, Push.self, Reports.self, Log.self, TimelineCommand.self,
            Reload.self,
        ]
    )

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The daemon: process control, apps, pending requests."
        )
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.status, options: daemon, json: format.json) }
    }

    struct Apps: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The installed apps and their states.")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.apps, options: daemon, json: format.json) }
    }

    struct Assertions: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Outstanding background-task assertions.")
        @Option(help: "Only this app's.") var app: String?
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws {
            try DaemonClient.run(.assertions(app.map { AppID($0) }), options: daemon, json: format.json)
        }
    }

    struct Tasks: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pending and running task requests.")
        @Option(help: "Only this app's.") var app: String?
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.tasks(app.map { AppID($0) }), options: daemon, json: format.json) }
    }

    struct Why: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Why a pending request has not run.")
        @OptionGroup var task: TaskOptions
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws {
            try DaemonClient.run(.why(identifier: task.identifier, app: task.appID), options: daemon, json: format.json)
        }
    }

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring an app to the foreground (focus gained), launching it if needed; clears a force quit."
        )
        @Argument(help: "The app's bundle identifier.") var app: String
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.open(AppID(app)), options: daemon, json: format.json) }
    }

    struct Home: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the foreground app to the background (focus lost)."
        )
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.home, options: daemon, json: format.json) }
    }

    struct ForceQuit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "force-quit",
            abstract: "End an app as the user closing it for good: not launched in the background until opened."
        )
        @Argument(help: "The app's bundle identifier.") var app: String
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.forceQuit(AppID(app)), options: daemon, json: format.json) }
    }

    struct SimulateLaunch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate-launch",
            abstract: "Run a pending task request now (the debugger's hook)."
        )
        @OptionGroup var task: TaskOptions
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws {
            try DaemonClient.run(
                .simulateLaunch(identifier: task.identifier, app: task.appID),
                options: daemon,
                json: format.json
            )
        }
    }

    struct SimulateExpiration: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate-expiration",
            abstract: "Expire a running task now (the debugger's hook)."
        )
        @OptionGroup var task: TaskOptions
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws {
            let request = ControlRequest.simulateExpiration(identifier: task.identifier, app: task.appID)
            try DaemonClient.run(request, options: daemon, json: format.json)
        }
    }

    struct Push: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deliver a silent push to an app: resumed, or launched in the background if not running.",
            discussion: """
                As APNs would: UIBackgroundModes must declare remote-notification, 3 pushes an hour \
                (a later one waits and replaces the one waiting), none for a force-quit app, 30 s \
                for the completion handler. The payload: JSON text, @FILE, or - for standard input. \
                Exit codes: 0 delivered, launching or waiting; 1 refused or not installed; 65 \
                malformed payload; 69 daemon not reachable.
                """
        )
        @Argument(help: "The app's bundle identifier.") var app: String
        @OptionGroup var payload: PushPayloadArgument
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws {
            let json = try payload.text()
            try DaemonClient.run(.push(AppID(app), payload: json), options: daemon, json: format.json)
        }
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read the manifests directory again and put it in force (the daemon also does it on a change).",
            discussion: """
                New manifests install their apps, changed ones replace the old, and apps whose manifest \
                is gone are no longer launched (a process of theirs that runs is left running). Every \
                check of the start applies (docs/daemon-protocol.md). Exit status: 0 when every \
                manifest loaded; 65 when one or more did not (each is named; the others are in force); \
                77 when the directory itself is unsafe (nothing changed); 69 when the daemon is not \
                running.
                """
        )
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws {
            let reply = try DaemonClient(options: daemon).request(.reloadManifests)
            print(format.json ? reply.json : ControlCharacters.escapedLines(reply.text))
            guard reply.outcome == .ok else { return try DaemonClient.throwExitStatus(for: reply.outcome) }
            let document = try? JSONSerialization.jsonObject(with: Data(reply.json.utf8)) as? [String: Any]
            if let notLoaded = document?["notLoaded"] as? [Any], !notLoaded.isEmpty {
                throw ExitCode(ExitStatus.badInput.rawValue)
            }
        }
    }

    struct Reports: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The termination reports the daemon wrote.")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions
        func run() throws { try DaemonClient.run(.reports, options: daemon, json: format.json) }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The daemon's latest state changes and log records (with --follow, then new ones until interrupted).",
            discussion: """
                The daemon keeps its latest lines (up to DaemonEngine.recentLogLines); with --json each \
                line is one document, {"line": "<text>"}.
                """
        )
        @Flag(help: "Keep printing new lines.") var follow = false
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var format: OutputOptions

        func run() throws {
            let client = try DaemonClient(options: daemon)
            let reply = try client.request(.followLog)
            guard reply.outcome == .ok else { throw CommandFailure(.badInput, "backgroundd", reply.text) }
            for line in Self.recentLines(reply.json) { printLine(line) }
            guard follow else { return }
            try followLines(client)
        }

        /// The lines the daemon kept, from its answer (`recent`).
        static func recentLines(_ json: String) -> [String] {
            let document = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            return document?["recent"] as? [String] ?? []
        }

        private func followLines(_ client: DaemonClient) throws {
            while true {
                let message: DaemonResponse
                do {
                    message = try client.receive()
                } catch  where error.status == .timedOut {
                    continue  // quiet: keep waiting
                }
                guard case .logLine(let line) = message else { continue }
                printLine(line)
            }
        }

        private func printLine(_ line: String) {
            if format.json {
                // A dictionary of one string always serializes.
                let data = (try? JSONSerialization.data(withJSONObject: ["line": line])) ?? Data()
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(ControlCharacters.escaped(line))
            }
            fflush(nil)
        }
    }
}

/// A task identifier, and the app when several have it.
struct TaskOptions: ParsableArguments {
    @Argument(help: "The task identifier.") var identifier: String
    @Option(help: "The app, when several have the identifier.") var app: String?

    var appID: AppID? { app.map { AppID($0) } }
}
