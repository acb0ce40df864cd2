public import BackgroundProtocol
import Foundation

/// Reads the daemon's journal (``JournalEntry`` lines) without the daemon: what `bgctl daemon
/// timeline` and `bgctl daemon log` draw from, so they work after the daemon stopped or crashed.
public enum JournalReader {
    /// The entries of the journal at `path` and its previous rotation (`<path>.1`) at or after
    /// `since` (wall-clock seconds), oldest first. Torn or unreadable lines are skipped; a missing
    /// file is no entries.
    ///
    /// - Throws: `CocoaError` if a file exists but cannot be read.
    public static func entries(at path: String, since: Double) throws -> [JournalEntry] {
        let decoder = JSONDecoder()
        var entries: [JournalEntry] = []
        for file in [path + ".1", path] where FileManager.default.fileExists(atPath: file) {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            for line in data.split(separator: 0x0A) {
                guard let entry = try? decoder.decode(JournalEntry.self, from: line), entry.time >= since else {
                    continue
                }
                entries.append(entry)
            }
        }
        return entries
    }
}
