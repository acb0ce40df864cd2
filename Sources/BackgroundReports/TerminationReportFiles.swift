package import BackgroundCore
import BackgroundPosix
package import Foundation

/// A termination report's two files in a reports directory: `<app>-<incident>-<time>.txt` (the
/// text ``TerminationReport/renderText(process:)`` gives) and `.json` (its
/// ``TerminationReportDocument``). The one writer of report files, for the embedded system and
/// the daemon alike.
///
/// The directory is reached without following links and must be this user's and not writable
/// by others (created `0700` when missing, `SecureDirectory`); each file is written atomically
/// with mode `0600` whatever the umask.
package enum TerminationReportFiles {
    /// The two files' common name: `<bundle>-<incident>-<ISO 8601 time without colons>`. A `/`
    /// in the bundle identifier is written `%2F`, so the name stays one path component.
    package static func baseName(for report: TerminationReport, date: Date) -> String {
        let stamp = ISO8601DateFormatter().string(from: date).replacingOccurrences(of: ":", with: "")
        let bundle = report.app.bundleIdentifier.replacingOccurrences(of: "/", with: "%2F")
        return "\(bundle)-\(report.incident)-\(stamp)"
    }

    /// Writes `text` and `document` for `report` into the directory at `path`, and returns the
    /// files' common name (``baseName(for:date:)``).
    ///
    /// - Throws: `SecureDirectoryError` when the directory is not safe to write in,
    ///   `SystemCallError` when a write fails, `EncodingError` when the document cannot be encoded.
    package static func write(
        text: String,
        document: TerminationReportDocument,
        for report: TerminationReport,
        date: Date,
        in path: String
    ) throws -> String {
        let directory = try SecureDirectory.open(path, access: .ownerWritable, creating: true)
        let base = baseName(for: report, date: date)
        try directory.writeAtomically(base + ".txt", Array(text.utf8))
        try directory.writeAtomically(base + ".json", Array(try document.jsonData()))
        return base
    }
}
