import BackgroundTestSupport
import Foundation
import Testing

/// `@main class AppDelegate: UIResponder, UIApplicationDelegate` as a Linux program
/// (`examples/AppDelegateExample`), run as a child process on the real clock: about a second.
@Suite("An @main app delegate runs as a program")
struct AppDelegateMainTests {
    static var example: URL {
        bgctlExecutable.deletingLastPathComponent().appendingPathComponent("AppDelegateExample")
    }

    @Test("Launch callbacks, then SIGTERM: resign active, background, its background task ends, exit 0")
    func launchesAndExitsOnSIGTERM() async throws {
        let outcome = try await RealClockShutdownTests.runUntilSignalled(Self.example, [])
        #expect(outcome.status == 0, "stderr: \(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "didFinishLaunching", "didBecomeActive", "ready", "willResignActive", "didEnterBackground", "saved",
            ],
            "stderr: \(outcome.standardError)"
        )
    }
}
