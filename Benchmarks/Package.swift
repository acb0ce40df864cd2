// swift-tools-version: 6.1
//
// Benchmarks for BackgroundExecution, kept in their own package so that the main package's
// `swift build` / `swift test` never resolve or compile the benchmark tooling.
//
// Run from this directory (see ../BENCHMARKS.md):
//
//     swift package --allow-writing-to-package-directory benchmark --target BeginEnd

import PackageDescription

let package = Package(
    name: "BackgroundExecutionBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BackgroundExecution", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        // The daemon's rows: socket round trips against a raw echo, memory, idle CPU (no plugin:
        // it measures side by side in one run and prints the rows).
        .executableTarget(
            name: "DaemonBench",
            dependencies: [
                .product(name: "BackgroundDaemon", package: "BackgroundExecution"),
                .product(name: "BackgroundProcessControl", package: "BackgroundExecution"),
                .product(name: "BackgroundCore", package: "BackgroundExecution"),
                .product(name: "BackgroundExecution", package: "BackgroundExecution"),
                .product(name: "BackgroundProtocol", package: "BackgroundExecution"),
                .product(name: "BackgroundStore", package: "BackgroundExecution"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "DaemonBench"
        ),
        .executableTarget(
            name: "BeginEnd",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BackgroundExecution", package: "BackgroundExecution"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/BeginEnd",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "SchedulerRecompute",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "SchedulerFixture",
            ],
            path: "Benchmarks/SchedulerRecompute",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // The scheduler's system with 100,000 pending requests, shared by its two benchmarks.
        .target(
            name: "SchedulerFixture",
            dependencies: [
                .product(name: "BackgroundCore", package: "BackgroundExecution")
            ],
            path: "SchedulerFixture"
        ),
        // Events at which requests fall due, timed one by one beside the full-scan floor, and
        // the first plug-in alone for callgrind (a plain executable: no plugin).
        .executableTarget(
            name: "SchedulerBench",
            dependencies: ["SchedulerFixture", "CallgrindControl"],
            path: "SchedulerBench"
        ),
        .executableTarget(
            name: "StoreBench",
            dependencies: [
                .product(name: "BackgroundCore", package: "BackgroundExecution"),
                .product(name: "BackgroundStore", package: "BackgroundExecution"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "StoreBench"
        ),
        .executableTarget(
            name: "SimulatorBench",
            dependencies: [
                .product(name: "BackgroundSimulator", package: "BackgroundExecution"),
                "CallgrindControl",
            ],
            path: "SimulatorBench"
        ),
        // Callgrind's start/stop client requests for SimulatorBench (no-ops without valgrind).
        .target(name: "CallgrindControl", path: "CallgrindControl"),
        // Freeze request to frozen, both mechanisms (needs cgroups for the cgroup rows).
        .executableTarget(
            name: "FreezeBench",
            dependencies: [
                .product(name: "BackgroundProcessControl", package: "BackgroundExecution")
            ],
            path: "FreezeBench"
        ),
        // Not a benchmark: the same rows as a plain executable, for valgrind/callgrind.
        .executableTarget(
            name: "BeginEndProfile",
            dependencies: [
                .product(name: "BackgroundExecution", package: "BackgroundExecution"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
