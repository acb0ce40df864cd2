import Foundation
import Synchronization

/// What the app prints, one line each, to standard output and to `--log <path>`.
enum Log {
    private static let said = Mutex<Set<String>>([])

    static func argument(_ name: String) -> String? {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    static func say(_ line: String) {
        let text = "\(line)\n"
        FileHandle.standardOutput.write(Data(text.utf8))
        guard let path = argument("--log") else { return }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        close(descriptor)
    }

    /// Says a line the first time only (progress comes many times).
    static func sayOnce(_ line: String) {
        if said.withLock({ $0.insert(line).inserted }) { say(line) }
    }

    /// The SHA-256 of the data, by `sha256sum` (the test app stays free of crypto code).
    static func sha256(_ data: Data) -> String {
        let input = Pipe()
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch { return "unavailable" }
        input.fileHandleForWriting.write(data)
        try? input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: result, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}
