import ArgumentParser
import BackgroundExecution
import CommandOutput
import Foundation
import Synchronization

/// `bgctl shutdown-example`: a real service shutting down gracefully on SIGTERM.
struct ShutdownExampleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shutdown-example",
        abstract: "A small service that finishes its work under a background task after SIGTERM.",
        discussion: """
            Starts a unit of work under beginBackgroundTask, prints 'ready', and waits. Send \
            SIGTERM (or press Ctrl-C): the service moves to the background, the work finishes \
            within the grace period and the process exits 0. With --leak the work never ends its \
            task: the watchdog ends the process with 0x8badf00d, prints the termination report \
            naming the task and its source line, writes it to the reports directory, and exits 70.
            """
    )

    @Option(parsing: .unconditional, help: "The shutdown budget in seconds (SystemPolicy.server(grace:)).")
    var grace: Double = 5

    @Option(parsing: .unconditional, help: "Seconds of work still to do after the signal arrives.")
    var work: Double = 0.5

    @Flag(help: "Leak the background task: never call endBackgroundTask.")
    var leak = false

    @Option(help: "Where termination reports are written.")
    var reportsDirectory: String?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        // A day at most: a grace the size of a day is already a mistake worth a question.
        guard grace > 0 else { throw ValidationError("--grace must be more than 0 seconds, not \(grace)") }
        try validateSeconds(grace, "--grace", 0...86_400)
        try validateSeconds(work, "--work", 0...86_400)
    }

    func run() async throws {
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.shutdown-example",
                policy: .server(grace: .seconds(fromInterval: grace)),
                reportsDirectory: reportsDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
                    ?? EmbeddedSystem.defaultReportsDirectory,
                logger: logging.logger(label: "shutdown-example")
            )
        )
        system.moveToBackground(onSignals: [SIGTERM, SIGINT])
        let application = UIApplication.bootstrap(system)
        let job = ExportJob(application: application, work: .seconds(fromInterval: work), leaks: leak)
        job.start()
        print("ready", terminator: "\n")
        fflush(nil)
        // The system ends the process: exit 0 when the last task ends, or a watchdog report.
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}

/// A unit of work that starts at once and finishes `work` after the app enters the background.
final class ExportJob: Sendable {
    private let application: UIApplication
    private let work: Duration
    private let leaks: Bool

    init(application: UIApplication, work: Duration, leaks: Bool) {
        self.application = application
        self.work = work
        self.leaks = leaks
    }

    func start() {
        let name = leaks ? "Leaky export" : "Nightly export"
        let task = application.beginBackgroundTask(withName: name)
        let application = self.application
        let work = self.work
        let leaks = self.leaks
        Task.detached {
            await Self.waitForBackground(application)
            try? await Task.sleep(for: work)
            print("export finished", terminator: "\n")
            fflush(nil)
            if !leaks { application.endBackgroundTask(task) }
        }
    }

    private static func waitForBackground(_ application: UIApplication) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(continuation)
            // Registered for the process's lifetime: this job runs once per process.
            _ = NotificationCenter.default.addObserver(
                forName: UIApplication.didEnterBackgroundNotification,
                object: nil,
                queue: nil
            ) { _ in once.resume() }
            if application.applicationState == .background { once.resume() }
        }
    }
}

/// Resumes a continuation the first time it is asked to, and ignores later requests.
final class ResumeOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume() {
        continuation.withLock { $0.take() }?.resume()
    }
}
