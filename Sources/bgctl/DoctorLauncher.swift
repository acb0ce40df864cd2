import ArgumentParser
import CommandOutput
import Foundation

/// `bgctl doctor`: runs the `bgctl-doctor` executable built next to `bgctl`.
///
/// The doctor parses Swift sources with swift-syntax, which takes minutes to build; keeping it
/// in its own executable keeps `bgctl` (and `swift run bgctl demo`) free of it. Arguments,
/// output and exit code pass through unchanged.
struct DoctorLauncher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check an app's Info.plist and Swift sources against Apple's rules (runs bgctl-doctor).",
        discussion: """
            Runs the bgctl-doctor executable found next to bgctl; build it with \
            `swift build --product bgctl-doctor`. See `bgctl doctor --help` once it is built. \
            Exit codes: 0 clean or notes, 1 warnings, 2 errors, 69 bgctl-doctor is not built.
            """
    )

    @Argument(parsing: .captureForPassthrough, help: "Arguments for bgctl-doctor.")
    var arguments: [String] = []

    /// The sibling executable: in the directory of the running `bgctl` (symbolic links resolved).
    static func siblingExecutable() -> URL {
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(filePath: own).resolvingSymlinksInPath().deletingLastPathComponent().appending(path: "bgctl-doctor")
    }

    func run() throws {
        let doctor = Self.siblingExecutable()
        guard FileManager.default.isExecutableFile(atPath: doctor.path) else {
            throw CommandFailure(
                .unavailable,
                doctor.path,
                "not found: the doctor is a separate executable (it needs swift-syntax); build it with "
                    + "`swift build --product bgctl-doctor` and run bgctl from the same build directory"
            )
        }
        let process = Process()
        process.executableURL = doctor
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            FileHandle.standardError.write(
                Data("bgctl doctor: \(doctor.path): cannot start: \(error.localizedDescription)\n".utf8)
            )
            throw ExitCode(69)
        }
        process.waitUntilExit()
        let status = process.terminationStatus
        if process.terminationReason == .uncaughtSignal {
            throw CommandFailure(.internalError, doctor.path, "ended by signal \(status)")
        }
        if status != 0 { throw ExitCode(status) }
    }
}

extension DoctorLauncher {
    /// Runs the doctor and returns its standard output, or nil if it could not run.
    static func capture(_ doctor: URL, _ arguments: [String]) -> Data? {
        let process = Process()
        process.executableURL = doctor
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appending(path: "bgctl-doctor-\(UUID().uuidString).out")
        guard
            FileManager.default.createFile(atPath: output.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = try? FileHandle(forWritingTo: output)
        else { return nil }
        defer {
            try? handle.close()
            try? FileManager.default.removeItem(at: output)
        }
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return FileManager.default.contents(atPath: output.path)
    }
}
