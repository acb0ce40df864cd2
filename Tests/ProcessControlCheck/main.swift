// process-control-check: a LinuxProcessController in a process of its own, so that tests can
// run one as another user (the unprivileged daemon in a delegated cgroup subtree). Not a product.
//
//   process-control-check <cgroup root> <subtree name> <test app>
//
// Prints the mechanism detected, then starts the test app ("sleep forever"), freezes it,
// reads its cgroup.events, thaws it, kills it and prints how it ended, one line each:
//
//   mechanism cgroup-freezer cgroup v2 freezer in /sys/fs/cgroup/unified/d/tree
//   spawned 4242 /sys/fs/cgroup/unified/d/tree/com.example.delegated@4241.2
//   frozen 1
//   exit was killed by signal 9 (SIGKILL)

import BackgroundProcessControl

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print("usage: process-control-check <cgroup root> <subtree name> <test app>")
    exit(64)
}
do {
    let controller = try LinuxProcessController(
        configuration: .init(cgroupRoot: arguments[1], subtreeName: arguments[2])
    )
    print("mechanism \(controller.freezeMechanism.name) \(controller.freezeMechanism)")
    let app = try controller.spawn(
        SpawnRequest(
            label: "com.example.delegated",
            executable: arguments[3],
            arguments: ["sleep", "forever"],
            workingDirectory: "/"
        )
    )
    print("spawned \(app.pid) \(app.cgroup ?? "none")")
    try await controller.freeze(app)
    if let cgroup = app.cgroup {
        let events = try String(decoding: readAll(cgroup + "/cgroup.events"), as: UTF8.self)
        print(events.split(separator: "\n").first { $0.hasPrefix("frozen") } ?? "frozen ?")
    } else {
        print("frozen (signals)")
    }
    try controller.thaw(app)
    try controller.kill(app)
    print("exit \(await controller.exit(of: app).status)")
} catch {
    print("error \(error)")
    exit(1)
}

func readAll(_ path: String) throws -> [UInt8] {
    let file = open(path, O_RDONLY)
    guard file >= 0 else { throw CheckError(path: path) }
    defer { close(file) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
    return count > 0 ? Array(buffer[..<count]) : []
}

struct CheckError: Error {
    var path: String
}
