import ArgumentParser
import BackgroundExecution

/// `bgctl demo`: the seed's upload-on-save example, run in virtual time.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the upload-on-save example in virtual time and print its timeline.",
        discussion: """
            Runs the UploadManager pattern from Apple's background-task guidance twice, on a \
            virtual clock under the iOS policy (30 s budget): once written correctly, where the \
            expiration handler ends the task and the app is suspended, and once with a leaked \
            assertion, which the watchdog ends with 0x8badf00d and a report naming the leak \
            and the line that began it. Takes milliseconds.
            """
    )

    @MainActor
    func run() async throws {
        print(UploadOnSaveDemo.run(), terminator: "")
    }
}
