import BackgroundTestSupport
import Foundation
import Testing

/// One foreground app with real processes under a real `backgroundd`: `daemon-api-test-app`
/// opened by the daemon (`bgctl daemon open`, its inherited connection), then a second copy
/// started by the user on the daemon's socket. The first resigns (willResignActive,
/// didEnterBackground) as the second comes to the foreground, and it became active once.
@Suite("backgroundd: one foreground app, real processes", .serialized)
struct ForegroundProcessTests {
    static let opened = "com.example.opened"
    static let started = "com.example.started"

    @Test("the user starts an app while the daemon's opened app is active: the opened one resigns, once active")
    func userStartedAppTakesTheForeground() async throws {
        let result = await onThread { () throws -> [String] in
            let executable = builtExecutable("daemon-api-test-app").path
            let daemon = try InstalledDaemon(
                manifestFile: "opened.json",
                others: [
                    "started.json": [
                        "CFBundleIdentifier": Self.started, "BackgroundLaunch": ["Arguments": [executable]],
                    ]
                ]
            ) { log in
                ["CFBundleIdentifier": Self.opened, "BackgroundLaunch": ["Arguments": [executable, "--log", log]]]
            }
            defer { daemon.stop() }
            var problems: [String] = []
            func logged(_ text: String) -> Bool {
                RealAppTests.waitFor(seconds: 60) {
                    ((try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "").contains(text)
                }
            }
            let opening = try daemon.bgctl(["open", Self.opened])
            // The app logs its state as it launches: inactive or already active, depending on
            // whether its activation arrived first (UIKit launches inactive); what counts is that
            // it became active, once (checked below). Waiting for "launched active" failed at load
            // with "launched inactive", then "didBecomeActive".
            guard logged("launched "), logged("didBecomeActive") else {
                // What bgctl said and what the app logged tell which side did not get there.
                let appLog = (try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "(no log)"
                return [
                    "the daemon did not open \(Self.opened): bgctl daemon open exited \(opening.status)"
                        + " (timed out: \(opening.timedOut)): \(opening.output) \(opening.error); the app's log: \(appLog)"
                ]
            }
            let user = try APIAppProcess(
                app: Self.started,
                socket: daemon.socket,
                home: daemon.state,
                apps: try daemon.bgctl(["apps", "--json"]).output
            )
            defer { user.stop() }
            if user.line(startingWith: "didBecomeActive") == nil { problems.append("no activation: \(user.seen)") }
            if !logged("willResignActive") || !logged("didEnterBackground") {
                problems.append("\(Self.opened) did not resign")
            }
            let output = (try? daemon.bgctl(["apps", "--json"]).output) ?? ""
            let document = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            let rows = (document?["apps"] as? [[String: Any]]) ?? []
            let states = Dictionary(
                rows.map { ($0["app"] as? String ?? "", "\($0["state"] ?? "")") },
                uniquingKeysWith: { first, _ in first }
            )
            if states[Self.started] != "active" || !["background", "suspended"].contains(states[Self.opened]) {
                problems.append("not one app in the foreground: \(states)")
            }
            let log = (try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? ""
            let activations = log.split(separator: "\n").filter { $0.hasSuffix(" didBecomeActive") }.count
            if activations != 1 { problems.append("\(Self.opened) became active \(activations) times: \(log)") }
            return problems
        }
        let problems = try result.get()
        #expect(problems.isEmpty, "\(problems)")
    }
}
