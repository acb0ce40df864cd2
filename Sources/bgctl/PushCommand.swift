import ArgumentParser
import BackgroundControl
import BackgroundExecution
import CommandOutput
import Foundation

/// `bgctl push`: a silent push to a running app, over its control socket (the embedded system).
/// `bgctl daemon push` sends the same to `backgroundd`, which also launches a not-running app.
struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Deliver a silent push (content-available) to a running app, as APNs would.",
        discussion: """
            The app's application(_:didReceiveRemoteNotification:fetchCompletionHandler:) gets the \
            payload, within Apple's rules: UIBackgroundModes must declare remote-notification for a \
            push in the background, 3 pushes an hour (a later one waits, and replaces the one \
            waiting), none for a force-quit app, 30 s for the completion handler. The payload is a \
            JSON object of at most 4096 bytes: the text itself, @FILE, or - for standard input \
            (default {"aps":{"content-available":1}}). To push to an app backgroundd runs (and \
            launch it if it is not running): bgctl daemon push. Exit codes: 0 delivered or waiting, \
            1 refused (the reason is printed), 64 usage, 65 malformed payload, 66 payload file \
            missing, 69 app not running, 75 timed out, 77 permission denied.
            """
    )

    @Argument(help: "The app's bundle identifier.")
    var app: String

    @OptionGroup var payload: PushPayloadArgument

    @Option(help: "The process identifier of the running app, when several run (chooses its control socket).")
    var pid: Int32?

    @Option(help: "The app's control directory (default: the embedded system's default for the app).")
    var controlDirectory: String?

    @OptionGroup var format: OutputOptions

    func run() throws {
        let json = try payload.text()
        let live = try LiveAppOptions.with(app: app, pid: pid, controlDirectory: controlDirectory)
        try ControlClient.run(DebugCommand(action: .push, json: format.json, payload: json), options: live)
    }
}

/// The payload argument of `bgctl push` and `bgctl daemon push`.
struct PushPayloadArgument: ParsableArguments {
    /// What a silent push carries when no payload is given.
    static let silentPush = #"{"aps":{"content-available":1}}"#

    @Argument(help: "The payload: JSON text, @FILE, or - for standard input (default: a bare silent push).")
    var payload: String?

    /// The payload's text, checked: a JSON object of at most 4096 bytes.
    ///
    /// - Throws: ``CommandFailure``: 66 for a file that cannot be read, 65 for a payload that is
    ///   not a JSON object or is too large.
    func text() throws -> String {
        let text: String
        switch payload {
        case nil: text = Self.silentPush
        case "-": text = try Self.read(FileHandle.standardInput, name: "standard input")
        case let path? where path.hasPrefix("@"):
            let file = String(path.dropFirst())
            try PathCheck.readableFile(file)
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw CommandFailure(.inputMissing, file, "cannot be opened")
            }
            defer { try? handle.close() }
            text = try Self.read(handle, name: file)
        case let json?: text = json
        }
        do {
            return try RemoteNotificationPayload(json: text).json
        } catch {
            throw CommandFailure(.badInput, "payload", error.reason)
        }
    }

    /// Reads at most one byte more than a payload may have (the check then names the size), so
    /// a huge file or an endless pipe is never read whole.
    private static func read(_ handle: FileHandle, name: String) throws -> String {
        do {
            let data = try handle.read(upToCount: RemoteNotificationPayload.maximumSize + 1) ?? Data()
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw CommandFailure(error, subject: name, defaultStatus: .ioError)
        }
    }
}
