// swift-tools-version: 6.1
//
// BackgroundExecution: the iOS background execution system, implemented in Swift for Linux.
//
// Layers point inward: the targets below are listed by layer, from the core up, with one comment
// per layer, and the README's "How it works" section draws them and says who depends on whom.
// `BackgroundCore` is a pure state machine with no I/O, clocks or threads; `BackgroundExecution`
// is the app-facing API with Apple's names, the app runtime, the in-process `EmbeddedSystem` and
// the daemon client; `bgctl` is the command line.

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "BackgroundExecution",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BackgroundCore", targets: ["BackgroundCore"]),
        .library(name: "BackgroundExecution", targets: ["BackgroundExecution"]),
        .library(name: "BackgroundProtocol", targets: ["BackgroundProtocol"]),
        .library(name: "BackgroundStore", targets: ["BackgroundStore"]),
        // The machine's conditions (power, network, input, memory pressure) read event-driven.
        .library(name: "BackgroundDevice", targets: ["BackgroundDevice"]),
        // The test kit: a virtual device and virtual time that apps' own test suites drive. The
        // product includes the Swift Testing glue, so a fault with no hook fails the test that
        // caused it in every test target that uses it; bgctl links the target alone, never Testing.
        .library(name: "BackgroundSimulator", targets: ["BackgroundSimulator", "BackgroundSimulatorTesting"]),
        // Swift Testing glue for the test kit alone (the fault recorder and a trait).
        .library(name: "BackgroundSimulatorTesting", targets: ["BackgroundSimulatorTesting"]),
        // The embedded system as a swift-service-lifecycle `Service`; only its users link it.
        .library(name: "BackgroundServiceLifecycle", targets: ["BackgroundServiceLifecycle"]),
        // The daemon's Linux edge for app processes: spawn with an inherited socket into a cgroup,
        // freeze (cgroup v2 or SIGSTOP), kill, exit watching, /proc/locks for 0xdead10cc.
        .library(name: "BackgroundProcessControl", targets: ["BackgroundProcessControl"]),
        // The HTTP transfer engine behind background `URLSession`s (async-http-client); only what
        // runs transfers links it (an app in embedded mode, the daemon), never bgctl or the core.
        .library(name: "BackgroundTransfers", targets: ["BackgroundTransfers"]),
        .executable(name: "bgctl", targets: ["bgctl"]),
        // The system as a Linux daemon: the core, the store, the apps' manifests and a Unix socket.
        .library(name: "BackgroundDaemon", targets: ["BackgroundDaemon"]),
        .executable(name: "backgroundd", targets: ["backgroundd"]),
        // `bgctl doctor` runs this sibling: swift-syntax stays out of what `bgctl` compiles.
        .executable(name: "bgctl-doctor", targets: ["bgctl-doctor"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation` builds the DocC catalog (CI does, so it cannot rot).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
        // The daemon's Unix-domain socket server (BackgroundDaemon), the transfers' HTTP client and
        // the transfer tests' loopback server.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // ── Layer 1. The core: a pure state machine (no I/O, clocks, threads or Foundation).
        .target(
            name: "BackgroundCore",
            dependencies: [.product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: strictSettings
        ),
        // ── Layer 2. Below the app-facing API, shared by both sides of a process boundary: the
        //    wire protocol, system calls, published reports, manifests, the control channel, paths.
        // The protocol between an app's runtime and a system in another process: message types
        // and a pure, versioned, bounds-checked codec (the daemon adds framing and sockets).
        .target(
            name: "BackgroundProtocol",
            dependencies: ["BackgroundCore"],
            swiftSettings: strictSettings
        ),
        // The project's system calls (one `SystemCall`, `EINTR` retried in one place),
        // `SecureDirectory` and Unix-domain sockets: Glibc and the core, no Foundation.
        .target(
            name: "BackgroundPosix",
            dependencies: ["BackgroundCore"],
            swiftSettings: strictSettings
        ),
        // Termination reports in their published forms (the versioned JSON document) and the one
        // writer of report files, for the embedded system and the daemon.
        .target(
            name: "BackgroundReports",
            dependencies: ["BackgroundCore", "BackgroundPosix"],
            swiftSettings: strictSettings
        ),
        // Reading an app's manifest (Info.plist, XML or binary property list, or JSON) into the
        // core's `AppManifest`, bounded and screened: for the embedded system, the daemon, bgctl
        // and the doctor.
        .target(
            name: "BackgroundManifest",
            dependencies: ["BackgroundCore"],
            swiftSettings: strictSettings
        ),
        // The control channel of an embedded app (its `ControlServer`, bgctl's `ControlEndpoint`)
        // and the documents bgctl prints (status, why, modes, push, debug replies).
        .target(
            name: "BackgroundControl",
            dependencies: ["BackgroundCore", "BackgroundPosix"],
            swiftSettings: strictSettings
        ),
        // Where the system's files are: the embedded system's directories (XDG), the daemon's
        // paths (`DaemonPaths`), and the reader of the daemon's journal found there.
        .target(
            name: "BackgroundPaths",
            dependencies: ["BackgroundCore", "BackgroundProtocol"],
            swiftSettings: strictSettings
        ),
        // ── Layer 3. The edges the shells drive: SQLite, HTTP transfers, the machine's conditions,
        //    Linux processes.
        .target(
            name: "BackgroundStore",
            dependencies: ["BackgroundCore", "CSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        // The SQLite settings Swift cannot reach (sqlite3_db_config is variadic); the system's
        // libsqlite3, the one GRDB links.
        .target(
            name: "CSQLiteSettings",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        // Background transfers: resumable downloads and file uploads over async-http-client, with
        // checkpoints in a store (Core's `TransferCheckpointStore`, which BackgroundStore implements).
        .target(
            name: "BackgroundTransfers",
            dependencies: [
                "BackgroundCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Device probes for the daemon: sysfs/procfs readers, inotify/netlink/PSI watchers, the
        // sourced reading and the developer's overrides (Glibc only, no Foundation).
        .target(
            name: "BackgroundDevice",
            dependencies: ["BackgroundCore", "BackgroundPosix"],
            swiftSettings: strictSettings
        ),
        // App processes for the daemon (Glibc): spawning, the cgroup v2 freezer with a
        // SIGSTOP/SIGCONT fallback, kills, exits, held file locks. Below the Apple-API module: it
        // reaches only BackgroundPosix's SystemCall and SecureDirectory and BackgroundReports.
        .target(
            name: "BackgroundProcessControl",
            dependencies: ["BackgroundCore", "BackgroundPosix", "BackgroundReports", "CProcessSpawn"],
            swiftSettings: strictSettings
        ),
        // The child's side of a spawn (between clone3 and exec only async-signal-safe calls are
        // allowed, so it is C): descriptors, process group, cgroup, signal mask; and waitid on a pidfd.
        .target(name: "CProcessSpawn"),
        // ── Layer 4. The app side: Apple's API, the app runtime, the embedded system, the daemon
        //    client; and the swift-service-lifecycle bridge.
        .target(
            name: "BackgroundExecution",
            dependencies: [
                "BackgroundCore",
                "BackgroundControl",
                "BackgroundManifest",
                "BackgroundPaths",
                "BackgroundPosix",
                "BackgroundProtocol",
                "BackgroundReports",
                "CObjectInit",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // `[[cls alloc] init]` for Foundation's NSObject: `@main` creates the app delegate with its
        // `init()` as UIApplicationMain does, though UIKit's `UIResponder.init()` is not `required`.
        .target(name: "CObjectInit"),
        .target(
            name: "BackgroundServiceLifecycle",
            dependencies: [
                "BackgroundExecution",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // ── Layer 5. System shells around the core: the simulator (the test kit), the daemon, the
        //    setup doctor.
        .target(
            name: "BackgroundSimulator",
            dependencies: [
                "BackgroundCore",
                "BackgroundExecution",
                "BackgroundProtocol",
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "BackgroundSimulatorTesting",
            dependencies: ["BackgroundSimulator", "CSimulatorTestingLoad"],
            swiftSettings: strictSettings
        ),
        // A C constructor that installs BackgroundSimulatorTesting's fault recorder when a test
        // binary loads (Swift has no load-time code); only BackgroundSimulatorTesting depends on it.
        .target(name: "CSimulatorTestingLoad"),
        // The daemon: the core driven by a Unix-socket server (NIO), the store and the apps'
        // manifests, in a swift-service-lifecycle ServiceGroup.
        .target(
            name: "BackgroundDaemon",
            dependencies: [
                "BackgroundCore",
                "BackgroundProtocol",
                "BackgroundPosix",
                "BackgroundReports",
                "BackgroundManifest",
                "BackgroundPaths",
                "BackgroundExecution",
                "BackgroundStore",
                "BackgroundProcessControl",
                "BackgroundDevice",
                "BackgroundTransfers",
                "CProcessSpawn",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The setup doctor: an app's manifest and Swift sources (swift-syntax) against Apple's rules.
        // Only `bgctl-doctor` links it, so `swift run bgctl demo` never compiles swift-syntax.
        .target(
            name: "BackgroundDoctor",
            dependencies: [
                "BackgroundCore",
                "BackgroundManifest",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        // ── Layer 6. Tools: the command lines and their shared output conventions.
        // Command output in one place: the exit-code table, the one-line error style, --json and
        // terminal-only progress and --log-level, for every command-line tool of the project.
        .target(
            name: "CommandOutput",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bgctl",
            dependencies: [
                "CommandOutput",
                "BackgroundCore",
                "BackgroundProtocol",
                "BackgroundPosix",
                "BackgroundControl",
                "BackgroundManifest",
                "BackgroundPaths",
                "BackgroundExecution",
                "BackgroundSimulator",
                "BackgroundStore",
                "BackgroundDevice",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bgctl-doctor",
            dependencies: [
                "BackgroundDoctor",
                "CommandOutput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "backgroundd",
            dependencies: [
                "BackgroundDaemon",
                "BackgroundDevice",
                "BackgroundPaths",
                "BackgroundProcessControl",
                "CommandOutput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // ── Examples (the README's, compiled as written) and a benchmark; not products.
        // The README's examples, compiled as written (a test checks the README shows these files
        // and runs them); not products.
        .executableTarget(
            name: "ExportService",
            dependencies: ["BackgroundExecution"],
            path: "examples/ExportService",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ExportServiceLifecycle",
            dependencies: [
                "BackgroundExecution", "BackgroundServiceLifecycle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "examples/ExportServiceLifecycle",
            swiftSettings: strictSettings
        ),
        // An iOS-style app whose entry point is `@main class AppDelegate: UIResponder, UIApplicationDelegate`,
        // run under the embedded system (SIGTERM moves it to the background); AppDelegateMainTests runs it.
        .executableTarget(
            name: "AppDelegateExample",
            dependencies: ["BackgroundExecution"],
            path: "examples/AppDelegateExample",
            swiftSettings: strictSettings
        ),
        // A background download in embedded mode that resumes at its next launch; the kill -9 test
        // (BackgroundTransfersTests) runs it as a child process.
        .executableTarget(
            name: "TransferExample",
            dependencies: ["BackgroundExecution", "BackgroundTransfers", "BackgroundStore"],
            path: "examples/TransferExample",
            swiftSettings: strictSettings
        ),
        // Transfers side by side with curl on the loopback server (BENCHMARKS.md); not a product.
        .executableTarget(
            name: "TransferBench",
            dependencies: ["BackgroundTransfers", "BackgroundStore", "BackgroundCore", "TransferTestServer"],
            path: "Benchmarks/TransferBench",
            swiftSettings: strictSettings
        ),
        // ── Tests: shared support, the test apps the suites start, and the suites.
        // The test app the process-control and daemon tests start: what it does is set by its
        // arguments (sleep, lock a file, echo on its connection, exit, crash). Glibc only.
        .executableTarget(
            name: "background-test-app",
            swiftSettings: strictSettings
        ),
        // The transfer tests' loopback HTTP server (ranges, ETags, drops, slow bodies, 5xx, redirects,
        // byte counters) and its child-process driver; not a product.
        .target(
            name: "TransferTestServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TransferTestServer",
            swiftSettings: strictSettings
        ),
        // Helpers shared by the test targets (a seeded generator); not a product.
        .target(
            name: "BackgroundTestSupport",
            dependencies: ["BackgroundCore"],
            path: "Tests/BackgroundTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundCoreTests",
            dependencies: [
                "BackgroundCore", "BackgroundTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundStoreTests",
            dependencies: [
                "BackgroundStore", "BackgroundCore", "BackgroundTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // App delegates of several initializer shapes started through `main()`, one per run (its
        // argument), for BackgroundExecutionTests' ResponderInitTests; not a product.
        .executableTarget(
            name: "responder-init-test-app",
            dependencies: ["BackgroundExecution"],
            path: "Tests/ResponderInitTestApp",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundExecutionTests",
            dependencies: [
                "BackgroundExecution", "BackgroundCore", "BackgroundProtocol", "BackgroundPosix", "BackgroundStore",
                "BackgroundTestSupport", "bgctl", "ExportService", "ExportServiceLifecycle", "AppDelegateExample",
                "responder-init-test-app",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundTransfersTests",
            dependencies: [
                "BackgroundTransfers", "BackgroundExecution", "BackgroundStore", "BackgroundCore",
                "TransferTestServer", "TransferExample", "BackgroundTestSupport", "bgctl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The service bridge and a loopback HTTP server in a real ServiceGroup, in a process of
        // its own, for BackgroundServiceLifecycleTests' runs with a real SIGTERM; not a product.
        .executableTarget(
            name: "service-lifecycle-test-app",
            dependencies: [
                "BackgroundServiceLifecycle", "BackgroundExecution",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/ServiceLifecycleTestApp",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundServiceLifecycleTests",
            dependencies: [
                "BackgroundServiceLifecycle", "BackgroundExecution", "BackgroundTestSupport",
                "service-lifecycle-test-app",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundDeviceTests",
            dependencies: [
                "BackgroundDevice", "BackgroundCore", "BackgroundTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        // A LinuxProcessController in a process of its own, run by the tests as another user
        // (an unprivileged daemon in a delegated cgroup subtree). Not a product.
        .executableTarget(
            name: "process-control-check",
            dependencies: ["BackgroundProcessControl"],
            path: "Tests/ProcessControlCheck",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundProcessControlTests",
            dependencies: [
                "BackgroundProcessControl", "BackgroundReports", "BackgroundTestSupport", "background-test-app",
                "process-control-check",
            ],
            swiftSettings: strictSettings
        ),
        // An app process that speaks the daemon's protocol (its steps are its arguments), for
        // BackgroundDaemonTests' runs with real processes; not a product.
        .executableTarget(
            name: "daemon-test-app",
            dependencies: ["BackgroundCore", "BackgroundProtocol"],
            path: "Tests/DaemonTestApp",
            swiftSettings: strictSettings
        ),
        // An app written with Apple's API only (an @main app delegate), run under backgroundd
        // through the daemon connection, for BackgroundDaemonTests; not a product.
        .executableTarget(
            name: "daemon-api-test-app",
            dependencies: ["BackgroundExecution"],
            path: "Tests/DaemonAPITestApp",
            swiftSettings: strictSettings
        ),
        // A background download written as iOS apps write it (app delegate, URLSessionDownloadDelegate,
        // handleEventsForBackgroundURLSession), run under backgroundd for BackgroundDaemonTests.
        .executableTarget(
            name: "daemon-transfer-test-app",
            dependencies: ["BackgroundExecution"],
            path: "Tests/DaemonTransferTestApp",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundDaemonTests",
            dependencies: [
                "BackgroundDaemon", "BackgroundCore", "BackgroundProtocol", "BackgroundPosix", "BackgroundStore",
                "BackgroundExecution",
                "BackgroundSimulator", "BackgroundTestSupport", "backgroundd", "bgctl", "daemon-test-app",
                "daemon-api-test-app",
                "daemon-transfer-test-app", "BackgroundTransfers", "TransferTestServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CommandOutputTests",
            dependencies: [
                "CommandOutput", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundSimulatorTests",
            dependencies: [
                "BackgroundSimulator", "BackgroundSimulatorTesting", "BackgroundExecution", "BackgroundTestSupport",
                "bgctl",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BackgroundDoctorTests",
            dependencies: ["BackgroundDoctor", "BackgroundTestSupport", "bgctl", "bgctl-doctor"],
            exclude: ["Fixtures", "SARIF"],
            swiftSettings: strictSettings
        ),
        // Code copied from the seed documents with only its imports changed. It is app code, written
        // the way iOS apps are (Swift 5 language mode), so this target proves source compatibility.
        .testTarget(
            name: "SeedFixtureTests",
            dependencies: [
                "BackgroundExecution", "BackgroundTestSupport", "BackgroundTransfers", "TransferTestServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // App code written the way iOS apps write it, in the Swift 6 language mode: it passes
        // closures that capture non-Sendable state to APIs Apple imports @preconcurrency. It
        // compiles with the warnings Xcode gives for the same code, not errors.
        .testTarget(
            name: "AppCodeSwift6Tests",
            dependencies: ["BackgroundExecution", "BackgroundCore", "BackgroundTransfers", "TransferTestServer"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
