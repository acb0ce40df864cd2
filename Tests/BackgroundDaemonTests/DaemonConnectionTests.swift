import BackgroundCore
import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// An ordinary program written with Apple's API (`daemon-api-test-app`: an @main app delegate,
/// `beginBackgroundTask`, `BGTaskScheduler`, `performExpiringActivity`) under a real
/// `backgroundd`, through the daemon connection: started by the user (the socket) and by the
/// daemon (the inherited connection), and across a `kill -9` and restart of the daemon.
@Suite("Apple's API under backgroundd", .serialized)
struct DaemonConnectionTests {
    static let app = "com.example.api"
    static let task = "com.example.api.work"

    /// A backgroundd on a state directory of its own, with the API app installed.
    final class Daemon: InstalledDaemon, @unchecked Sendable {
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        init() throws {
            try super.init(manifestFile: "api.json", arguments: ["--background-time", "2"]) { log in
                [
                    "CFBundleIdentifier": DaemonConnectionTests.app,
                    "BGTaskSchedulerPermittedIdentifiers": [DaemonConnectionTests.task],
                    "UIBackgroundModes": ["processing"],
                    "BackgroundLaunch": [
                        "Arguments": [
                            builtExecutable("daemon-api-test-app").path, "--task", DaemonConnectionTests.task, "--log",
                            log,
                        ]
                    ],
                ]
            }
        }

        /// The app's state in `bgctl daemon apps --json`.
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func state(of app: String) -> String? {
            appRow(app, apps: (try? bgctl(["apps", "--json"]).output) ?? "")?["state"] as? String
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func assertions() -> String {
            (try? bgctl(["assertions", "--json"]).output) ?? ""
        }

        /// The app started by the user, connected through the daemon's socket.
        func userApp() throws -> APIAppProcess {
            try APIAppProcess(
                app: DaemonConnectionTests.app,
                socket: socket,
                arguments: ["--task", DaemonConnectionTests.task],
                home: state,
                apps: try bgctl(["apps", "--json"]).output
            )
        }
    }

    @Test(
        "begins without a round trip, submits, asks, gets its lifecycle and expiration on the main actor, is frozen when suspended"
    )
    func ordinaryApp() async throws {
        let result = await onThread { () throws -> [String] in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let app = try daemon.userApp()
            defer { app.stop() }
            var problems: [String] = []
            func expect(_ prefix: String, _ what: String) {
                if app.line(startingWith: prefix) == nil { problems.append("\(what): no \"\(prefix)\" in \(app.seen)") }
            }
            expect("launched active", "launch")
            expect("didBecomeActive", "launch")
            app.send("begin Upload")
            expect("begun Upload 1", "begin")
            if !daemon.assertions().contains("Upload") { problems.append("the daemon does not hold Upload") }
            app.send("end 1")
            expect("ended 1", "end")
            if !RealAppTests.waitFor(seconds: 30, { !daemon.assertions().contains("Upload") }) {
                problems.append("the daemon still holds Upload")
            }
            app.send("submit \(Self.task) 3600")
            expect("submitted \(Self.task)", "submit")
            app.send("pending")
            expect("pending \(Self.task)", "pending")
            app.send("begin Sync")
            expect("begun Sync 2", "second begin")
            _ = try daemon.bgctl(["home"])
            expect("willResignActive", "home")
            expect("didEnterBackground", "home")
            expect("expired Sync 2", "expiration")  // the 2 s budget ran out: pushed by the daemon
            // Its last task ended with its time, the app is suspended, and frozen like an app the
            // daemon started (issue 22: an app the user started ran on). Opened, it runs again.
            let pid = Int(app.process.processIdentifier)
            let frozen = RealAppTests.waitFor(seconds: 60) {
                daemon.state(of: Self.app) == "suspended" && RealAppTests.isFrozen(pid)
            }
            if !frozen { problems.append("suspended but not frozen: \(daemon.state(of: Self.app) ?? "?")") }
            _ = try daemon.bgctl(["open", Self.app])
            expect("didBecomeActive", "opened again")
            app.send("state")
            expect("state active unlimited", "state")
            if !app.process.isRunning { problems.append("the app was ended") }
            return problems
        }
        let problems = try result.get()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("an app the daemon starts for its task speaks through the inherited connection")
    func launchedForTask() async throws {
        let result = await onThread { () throws -> (String, [String]) in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let app = try daemon.userApp()
            var problems: [String] = []
            if app.line(startingWith: "launched active") == nil { problems.append("no launch: \(app.seen)") }
            app.send("submit \(Self.task) 2")
            if app.line(startingWith: "submitted") == nil { problems.append("no submit: \(app.seen)") }
            app.send("exit")
            app.process.waitUntilExit()
            // Due in 2 s: the daemon starts the app in the background with a connected socket.
            _ = RealAppTests.waitFor(seconds: 60) {
                ((try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "").contains("completing")
            }
            // The completion reached the daemon through that socket: with nothing else held, the
            // app is suspended (it may be frozen before it writes another line).
            if !RealAppTests.waitFor(seconds: 60, { daemon.state(of: DaemonConnectionTests.app) == "suspended" }) {
                problems.append(
                    "not suspended after its task: \(daemon.state(of: DaemonConnectionTests.app) ?? "no row")"
                )
            }
            return ((try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "", problems)
        }
        let (log, problems) = try result.get()
        #expect(problems.isEmpty, "\(problems)")
        #expect(log.contains("launched background"), "\(log)")
        #expect(log.contains("task \(Self.task) launched"), "\(log)")
        #expect(log.contains("task \(Self.task) completing"), "\(log)")
    }

    @Test("a submit made while the daemon is away waits for it to come back, then is accepted")
    func submitWhileDisconnected() async throws {
        let result = await onThread { () throws -> [String] in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let app = try daemon.userApp()
            defer { app.stop() }
            var problems: [String] = []
            if app.line(startingWith: "launched active") == nil { problems.append("no launch: \(app.seen)") }
            daemon.killNine()
            app.send("submit \(Self.task) 3600")
            // The submit is made while no daemon runs (it waits, at most 10 s by default);
            // half a second gives the app's main actor time to make the call before the restart.
            usleep(500_000)
            try daemon.start()
            if let line = app.line(startingWith: "submit") {
                if line != "submitted \(Self.task)" { problems.append("the submit failed: \(line)") }
            } else {
                problems.append("no answer to the submit: \(app.seen)")
            }
            let tasks = (try? daemon.bgctl(["tasks", "--json"]).output) ?? ""
            if !tasks.contains(Self.task) { problems.append("the restarted daemon does not hold it: \(tasks)") }
            return problems
        }
        let problems = try result.get()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("a submit with no daemon to answer fails with unavailable once the reconnection wait is over")
    func submitWithoutDaemonFails() async throws {
        // On a thread of its own: the calls block for the wait, never the cooperative pool.
        let result = await onThread { () throws -> (threw: Bool, waited: Duration, pending: Int) in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let connection = DaemonConnection(
                configuration: .init(
                    app: AppID(Self.app),
                    endpoint: .socket(path: directory.path + "/nobody.sock"),
                    reconnectionWait: .milliseconds(300),
                    launchCompletion: .explicit
                )
            )
            let started = ContinuousClock.now
            let request = TaskRequest(identifier: Self.task, kind: .processing, earliestBegin: nil)
            var threw = false
            do { try connection.submitTaskRequest(request) } catch let error as BGTaskScheduler.Error {
                threw = error.code == .unavailable
            }
            let waited = ContinuousClock.now - started
            return (threw, waited, connection.pendingTaskRequests().count)
        }
        let (threw, waited, pending) = try result.get()
        #expect(threw, "submit throws unavailable")
        #expect(waited >= .milliseconds(300), "it waited for a connection first")
        #expect(pending == 0)
    }

    @Test("after kill -9 and a restart of the daemon, the app connects again and declares what it holds")
    func daemonRestart() async throws {
        let result = await onThread { () throws -> [String] in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let app = try daemon.userApp()
            defer { app.stop() }
            var problems: [String] = []
            func expect(_ prefix: String, _ what: String) {
                if app.line(startingWith: prefix) == nil { problems.append("\(what): no \"\(prefix)\" in \(app.seen)") }
            }
            expect("launched active", "launch")
            app.send("begin Keep")
            expect("begun Keep 1", "begin")
            daemon.killNine()
            try daemon.start()
            // The new daemon never saw the begin: the app declares it, under its identifier.
            if !RealAppTests.waitFor(seconds: 60, { daemon.assertions().contains("\"name\":\"Keep\"") }) {
                problems.append("the restarted daemon does not hold Keep: \(daemon.assertions())")
            }
            app.send("begin More")
            expect("begun More 2", "a begin after the restart")  // identifiers never go back in a process
            app.send("end 1")
            expect("ended 1", "end")
            if !RealAppTests.waitFor(seconds: 30, { !daemon.assertions().contains("Keep") }) {
                problems.append("Keep was not ended on the restarted daemon")
            }
            // In the background under the new daemon, with a budget of its own: it expires there,
            // and the app is not ended for the time the daemon was away.
            _ = try daemon.bgctl(["home"])
            expect("didEnterBackground", "home after the restart")
            daemon.killNine()
            try daemon.start()
            expect("expired More 2", "an expiration from the second daemon")
            if !app.process.isRunning { problems.append("the app was ended") }
            return problems
        }
        let problems = try result.get()
        #expect(problems.isEmpty, "\(problems)")
    }
}
