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
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let stamp = wallClock.replacingOccurrences(of: ":", with: "")
            let base = directory.appendingPathComponent("\(report.app.bundleIdentifier)-\(report.incident)-\(stamp)")
            try Data(text.utf8).write(to: base.appendingPathExtension("txt"), options: .atomic)
            try Self.json(for: report).write(to: base.appendingPathExtension("json"), options: .atomic)
            configuration.logger.notice("termination report written to \(base.path).{txt,json}")
        } catch {
            configuration.logger.error("could not write the termination report to \(directory.path): \(error)")
        }
    }
}
