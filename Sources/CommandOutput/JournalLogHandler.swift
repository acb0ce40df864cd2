import Foundation
public import Logging

/// Log lines for the systemd journal: each line starts with its syslog priority as `<N>` (which
/// journald reads as the entry's priority, shown in colour and filtered with `journalctl -p`),
/// and carries neither a timestamp nor the process's name, which the journal records itself.
///
/// ```text
/// <5>listening on /run/backgroundd/backgroundd.sock
/// <4>manifest bad.json not loaded: … app=com.example.news
/// ```
///
/// ``LoggingOptions/logger(label:)`` uses it when standard error is the journal
/// (``JournalStream/standardErrorIsJournal(environment:)``), swift-log's `StreamLogHandler`
/// (a timestamp, the level, the label) otherwise.
public struct JournalLogHandler: LogHandler {
    /// The lowest level logged.
    public var logLevel: Logger.Level = .info
    /// Metadata added to every line.
    public var metadata: Logger.Metadata = [:]

    /// A handler writing to standard error.
    public init() {}

    /// One item of ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` to standard error as ``lines(level:message:metadata:)`` gives it, in one
    /// write.
    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let text = Self.lines(level: event.level, message: "\(event.message)", metadata: merged)
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// The syslog priority of a level: `debug` 7 (trace too), `info` 6, `notice` 5, `warning` 4,
    /// `error` 3, `critical` 2 (syslog(3)'s `LOG_CRIT`).
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// The text written for one record: the message, then its metadata as sorted `key=value`
    /// pairs, every line of it prefixed with the priority (journald reads each line as an entry
    /// of its own), ending with a line break.
    public static func lines(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        let pairs = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = pairs.isEmpty ? message : message + " " + pairs
        let prefix = "<\(priority(of: level))>"
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 + "\n" }.joined()
    }
}

/// Whether a standard stream is connected to the systemd journal.
///
/// systemd sets `JOURNAL_STREAM=<device>:<inode>` for a service whose standard output or error
/// goes to the journal; the stream is the journal when that pair is the one `fstat` gives for
/// it (a child whose stream was redirected inherits the variable, not the stream: the pair then
/// differs). As `sd_journal_stream_fd(3)` and systemd.exec(5) describe.
public enum JournalStream {
    /// Whether `value`, a `JOURNAL_STREAM`, names the file with `device` and `inode`.
    public static func names(_ value: String?, device: UInt64, inode: UInt64) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let named = UInt64(parts[0]), let number = UInt64(parts[1]) else { return false }
        return named == device && number == inode
    }

    /// Whether this process's standard error is the journal, by `environment` (nil: the
    /// process's own).
    public static func standardErrorIsJournal(environment: [String: String]? = nil) -> Bool {
        let environment = environment ?? ProcessInfo.processInfo.environment
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return names(value, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
