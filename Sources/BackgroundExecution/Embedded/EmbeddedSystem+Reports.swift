public import BackgroundCore
public import BackgroundReports
public import Foundation

extension EmbeddedSystem {
    /// The report in its published JSON form (`TerminationReportDocument`, versioned, with
    /// a JSON Schema in `schemas/termination-report.schema.json`).
    public static func json(
        for report: TerminationReport,
        date: Date? = nil,
        process: TerminationReportDocument.Process? = nil
    ) throws -> Data {
        try TerminationReportDocument(report, date: date, process: process).jsonData()
    }

    /// Prints the report to standard error and writes `<app>-<incident>-<time>.txt` and `.json`
    /// into the reports directory. Failures to write are logged, never fatal.
    ///
    /// The files are the daemon's too (`TerminationReportFiles`, the one writer): the directory
    /// is reached without following links and must be this user's and not writable by others
    /// (created `0700` when missing); the files are written atomically with mode `0600`.
    func publish(_ report: TerminationReport) {
        let now = Date()
        let wallClock = ISO8601DateFormatter().string(from: now)
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
            let document = TerminationReportDocument(
                report,
                date: now,
                process: .init(name: process.processName, pid: Foundation.ProcessInfo.processInfo.processIdentifier)
            )
            let base = try TerminationReportFiles.write(
                text: text,
                document: document,
                for: report,
                date: now,
                in: directory.path
            )
            configuration.logger.notice(
                "termination report written to \(shown)/\(ControlCharacters.escaped(base)).{txt,json}"
            )
        } catch {
            configuration.logger.error("could not write the termination report to \(shown): \(error)")
        }
    }
}
