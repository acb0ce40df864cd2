import BackgroundExecution
import Foundation

// A service that must finish its export before it stops.
let system = EmbeddedSystem(
    configuration: .init(
        app: "com.example.exporter",
        policy: .server(grace: .seconds(20))  // 20 s to finish after SIGTERM
    )
)
system.moveToBackground(onSignals: [SIGTERM, SIGINT])  // SIGTERM moves the app to the background
let app = UIApplication.bootstrap(system)  // UIApplication.shared now talks to it

Task {
    // The task ends on every path; if the 20 s run out, the work is cancelled first.
    try await app.withBackgroundTask(named: "Nightly export") {
        for step in 1...8 {
            try await Task.sleep(for: .milliseconds(250))  // one step of real work
            print("export step \(step)/8")
        }
    }
}

// Keep the process alive. The system ends it: with status 0 once the app is in the background
// and its last background task has ended, or with a watchdog report naming what leaked.
while true { try await Task.sleep(for: .seconds(3600)) }
