import BackgroundExecution
import BackgroundServiceLifecycle
import Logging
import ServiceLifecycle

// The same service in a swift-service-lifecycle ServiceGroup, which owns SIGTERM.
let logger = Logger(label: "exporter")
let background = BackgroundExecutionService(
    configuration: .init(app: "com.example.exporter", policy: .server(grace: .seconds(20)))
)
let app = UIApplication.bootstrap(background.system)

Task {
    try await app.withBackgroundTask(named: "Nightly export") {
        for step in 1...8 {
            try await Task.sleep(for: .milliseconds(250))
            print("export step \(step)/8")
        }
    }
}

// The group shuts services down last first, each after the one behind it has returned: put
// `background` first, before any service that takes new work (an HTTP server), so that on SIGTERM
// the server stops accepting, then the app moves to the background and its work finishes.
let group = ServiceGroup(
    configuration: .init(services: [background], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
)
try await group.run()
