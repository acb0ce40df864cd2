// daemon-api-test-app: an app written as iOS apps are (an @main app delegate, Apple's API only),
// run under backgroundd for BackgroundDaemonTests. Only `import BackgroundExecution` differs
// from the iOS code; the daemon is chosen by the environment (BACKGROUND_SYSTEM=daemon, or the
// connection backgroundd passes to the apps it starts).
//
// Arguments: `--task <identifier>` registers a processing task handler at launch (repeatable);
// `--log <path>` appends every line it prints to that file too (for runs the daemon starts,
// whose output goes nowhere a test reads); `--commands <fifo>` reads commands from that named
// pipe as well (for runs the daemon starts, whose standard input is /dev/null);
// `--hang-on-terminate` makes applicationWillTerminate never return (an app the daemon's stop
// must kill after its time limit). Commands, one per
// line on standard input:
//
//   begin <name>            beginBackgroundTask; the expiration handler ends it
//   hold <name>             beginBackgroundTask; the expiration handler does not end it
//   end <id>                endBackgroundTask
//   submit <identifier> <s> submit a processing request due in <s> seconds
//   pending                 getPendingTaskRequests
//   activity <reason>       performExpiringActivity; the block waits for `finish`
//   finish                  lets the activity's block return
//   state                   applicationState and backgroundTimeRemaining
//   mode <mode>             begins a background mode's activity (audio, location, ...)
//   endmode <mode>          ends it
//   exit                    exit 0

import BackgroundExecution
import Foundation

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        for identifier in Output.arguments("--task") {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                Output.say("task \(task.identifier) launched")
                task.expirationHandler = { Output.say("task \(task.identifier) expired") }
                // Said before the call: once the task is completed the system may suspend (freeze)
                // the app at once, before a line after it is written.
                Output.say("task \(task.identifier) completing")
                task.setTaskCompleted(success: true)
            }
        }
        Output.say("launched \(application.applicationState)")
        Commands.start(application)
        return true
    }

    func applicationDidBecomeActive(_ application: UIApplication) { Output.say("didBecomeActive") }
    func applicationWillResignActive(_ application: UIApplication) { Output.say("willResignActive") }
    func applicationDidEnterBackground(_ application: UIApplication) { Output.say("didEnterBackground") }
    func applicationWillEnterForeground(_ application: UIApplication) { Output.say("willEnterForeground") }
    func applicationWillTerminate(_ application: UIApplication) {
        Output.say("willTerminate")
        if CommandLine.arguments.contains("--hang-on-terminate") {
            while true { sleep(3600) }  // the main thread never returns: the daemon must kill it
        }
    }
}

/// Reads commands from standard input on a thread of its own and runs each on the main actor,
/// as app code would run in answer to the user.
@MainActor
enum Commands {
    /// The background tasks begun, by name.
    static var tasks: [String: UIBackgroundTaskIdentifier] = [:]
    /// The background mode activities begun, by mode.
    static var activities: [String: BackgroundActivity] = [:]

    nonisolated static func start(_ application: UIApplication) {
        read(from: FileHandle.standardInput, application)
        if let fifo = Output.arguments("--commands").first {
            // Opened for reading and writing: the open does not wait for a writer, and the pipe
            // never reaches its end between two writers.
            let descriptor = open(fifo, O_RDWR)
            if descriptor >= 0 { read(from: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), application) }
        }
    }

    nonisolated static func read(from input: FileHandle, _ application: UIApplication) {
        // read(2) through FileHandle, not readLine: stdio's lock on standard input, held while a
        // read blocks, would stop every fflush(nil) in the process (the library's exit flushes).
        let thread = Thread {
            var pending = ""
            while true {
                let data = input.availableData
                if data.isEmpty { return }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let words = pending[..<newline].split(separator: " ").map(String.init)
                    pending = String(pending[pending.index(after: newline)...])
                    guard !words.isEmpty else { continue }
                    DispatchQueue.main.async { MainActor.assumeIsolated { run(words, application) } }
                }
            }
        }
        thread.start()
    }

    static func run(_ words: [String], _ application: UIApplication) {
        let argument = words.count > 1 ? words[1] : ""
        switch words[0] {
        case "begin", "hold":
            let ends = words[0] == "begin"
            let id = application.beginBackgroundTask(withName: argument) {
                let id = tasks[argument] ?? .invalid
                Output.say("expired \(argument) \(id.rawValue)")
                if ends { application.endBackgroundTask(id) }
            }
            tasks[argument] = id
            Output.say(id == .invalid ? "denied \(argument)" : "begun \(argument) \(id.rawValue)")
        case "end":
            application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: Int(argument) ?? 0))
            Output.say("ended \(argument)")
        case "submit":
            let request = BGProcessingTaskRequest(identifier: argument)
            let seconds = words.count > 2 ? Double(words[2]) ?? 0 : 0
            request.earliestBeginDate = Date(timeIntervalSinceNow: seconds)
            do {
                try BGTaskScheduler.shared.submit(request)
                Output.say("submitted \(argument)")
            } catch {
                Output.say("submit failed \(error)")
            }
        case "pending":
            BGTaskScheduler.shared.getPendingTaskRequests { requests in
                Output.say("pending \(requests.map(\.identifier).sorted().joined(separator: ","))")
            }
        case "activity":
            Activity.perform(argument)
        case "finish":
            Activity.finish()
        case "state":
            let remaining = application.backgroundTimeRemaining
            let text = remaining == .greatestFiniteMagnitude ? "unlimited" : String(Int(remaining.rounded()))
            Output.say("state \(application.applicationState) \(text)")
        case "mode":
            let activity = application.beginActivity(BackgroundMode(rawValue: argument))
            activities[argument] = activity
            Output.say(
                activity.keepsAppRunning
                    ? "mode \(argument) held" : "mode \(argument) refused \(activity.refusal ?? "")"
            )
        case "endmode":
            activities.removeValue(forKey: argument)?.end()
            Output.say("mode \(argument) ended")
        case "exit":
            exit(0)
        default:
            Output.say("unknown command \(words[0])")
        }
    }
}

/// `performExpiringActivity`, whose block holds the assertion until told to finish.
enum Activity {
    static let finished = DispatchSemaphore(value: 0)

    static func perform(_ reason: String) {
        ProcessInfo.processInfo.performExpiringActivity(withReason: reason) { expired in
            Output.say("activity \(reason) expired=\(expired)")
            if !expired { finished.wait() }
        }
    }

    static func finish() { finished.signal() }
}

/// Lines out: standard output, flushed, and the `--log` file.
enum Output {
    static let lock = NSLock()

    static func arguments(_ flag: String) -> [String] {
        let all = CommandLine.arguments
        return all.indices.filter { all[$0] == flag && $0 + 1 < all.count }.map { all[$0 + 1] }
    }

    static func say(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))  // unbuffered: it reaches a pipe at once
        if let path = arguments("--log").first, let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data("\(getpid()) \(line)\n".utf8))
            try? handle.close()
        }
    }
}
