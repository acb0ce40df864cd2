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
            _ = try daemon.bgctl(["open", Self.opened])
            guard logged("launched active"), logged("didBecomeActive") else {
                return ["the daemon did not open \(Self.opened)"]
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
