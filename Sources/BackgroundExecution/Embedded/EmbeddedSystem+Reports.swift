public import BackgroundCore
public import Foundation

extension EmbeddedSystem {
    /// The report as JSON, pretty-printed with sorted keys.
    public static func json(for report: TerminationReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(report)
    }

    /// Prints the report to standard error and writes `<app>-<incident>-<time>.txt` and `.json`
    /// into the reports directory. Failures to write are logged, never fatal.
    ///
    /// The directory is reached without following links and must be this user's and not
    /// writable by others (created `0700` when missing); the files are written atomically with
    /// mode `0600` whatever the umask.
    func publish(_ report: TerminationReport) {
        let wallClock = ISO8601DateFormatter().string(from: Date())
        let process = TerminationReport.ProcessInfo(
            processName: Foundation.ProcessInfo.processInfo.processName,
            pid: Foundation.ProcessInfo.processInfo.processIdentifier,
            wallClockTime: wallClock
        )
        let text = report.renderText(process: process)
        if configuration.printsReportsToStandardError {
            ProcessControl.writeToStandardError(text)
        }
        guard let directory = configuration.reportsDirectory else { return }
        let shown = ControlCharacters.escaped(directory.path)
        do {
            let secure = try SecureDirectory.open(directory.path, access: .ownerWritable, creating: true)
            let stamp = wallClock.replacingOccurrences(of: ":", with: "")
            let bundle = report.app.bundleIdentifier.replacingOccurrences(of: "/", with: "%2F")
            let base = "\(bundle)-\(report.incident)-\(stamp)"
            try secure.writeAtomically(base + ".txt", Data(text.utf8))
            try secure.writeAtomically(base + ".json", Self.json(for: report))
            configuration.logger.notice(
                "termination report written to \(shown)/\(ControlCharacters.escaped(base)).{txt,json}"
            )
        } catch {
            configuration.logger.error("could not write the termination report to \(shown): \(error)")
        }
    }
}
