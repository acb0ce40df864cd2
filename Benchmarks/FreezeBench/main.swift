// FreezeBench: the time from a freeze request to the kernel's confirmation that the app is
// frozen, for both mechanisms of BackgroundProcessControl, side by side in one run.
//
//     swift run -c release FreezeBench [iterations]      # default 200 per row
//
// Each row starts one app with LinuxProcessController, then repeats: freeze (timed by
// `freeze(_:)` itself, from the call to the confirmation: `frozen 1` in cgroup.events, or
// state T in /proc for every member of the process group), thaw, 2 ms of running. Two apps:
// one asleep (`sleep`), one busy on a CPU (`sh -c 'while :; do :; done'`), the hard case, as
// its CPU must be interrupted. The cgroup rows need cgroups (root, or a delegated root).

import BackgroundProcessControl

#if canImport(Glibc)
import Glibc
#endif

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200

struct Row {
    var mechanism: String
    var workload: String
    var samples: [Duration]

    func percentile(_ fraction: Double) -> Duration {
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

func microseconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    return String(Int(value.rounded()))
}

func measure(_ controller: LinuxProcessController, _ workload: String, _ argv: [String]) async throws -> Row {
    let app = try controller.spawn(
        SpawnRequest(
            label: "bench.\(workload)",
            executable: argv[0],
            arguments: Array(argv.dropFirst()),
            environment: ["PATH": "/usr/bin:/bin"],
            workingDirectory: "/tmp",
            standardOutput: .null
        )
    )
    try await Task.sleep(for: .milliseconds(50))  // let it start
    var samples: [Duration] = []
    for index in 0..<(iterations + 10) {
        let took = try await controller.freeze(app)
        if index >= 10 { samples.append(took) }  // the first ten warm up
        try controller.thaw(app)
        try await Task.sleep(for: .milliseconds(2))
    }
    try controller.kill(app)
    _ = await controller.exit(of: app)
    return Row(mechanism: controller.freezeMechanism.name, workload: workload, samples: samples)
}

let workloads: [(String, [String])] = [
    ("asleep", ["/bin/sleep", "100000"]),
    ("busy", ["/bin/sh", "-c", "while :; do :; done"]),
]
var rows: [Row] = []
let cgroups = try LinuxProcessController(configuration: .init(subtreeName: "backgroundd-freeze-bench"))
let signals = try LinuxProcessController(configuration: .init(freezer: .processGroupSignals))
print("cgroup controller: \(cgroups.freezeMechanism)")
for (name, argv) in workloads {
    if case .cgroupFreezer = cgroups.freezeMechanism {
        rows.append(try await measure(cgroups, name, argv))
    }
    rows.append(try await measure(signals, name, argv))
}
print("| mechanism | app | samples | p50 µs | p90 µs | p99 µs | max µs |")
print("|---|---|---|---|---|---|---|")
for row in rows {
    let cells = [0.5, 0.9, 0.99, 1.0].map { microseconds(row.percentile($0)) }
    print("| \(row.mechanism) | \(row.workload) | \(row.samples.count) | \(cells.joined(separator: " | ")) |")
}
