public import Foundation

/// The `bgctl` built next to the running test bundle (test targets depend on it, so it is there).
public var bgctlExecutable: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("bgctl")
}

/// Runs `bgctl` with `arguments` to its end; returns its exit status, standard output and standard error.
public func runBgctl(
    _ arguments: [String],
    in directory: URL? = nil
) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = bgctlExecutable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outputData, as: UTF8.self),
        String(decoding: errorData, as: UTF8.self)
    )
}
