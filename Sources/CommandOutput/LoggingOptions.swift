public import ArgumentParser
public import Logging

/// `--log-level`, the one definition every command-line tool of the project uses (`backgroundd`,
/// `bgctl`'s example services): swift-log's levels, default info; `--log-level warning` keeps
/// only problems. A value that is not a level is a usage error (exit 64) listing the levels.
public struct LoggingOptions: ParsableArguments {
    @Option(help: "The lowest level logged: trace, debug, info, notice, warning, error or critical.")
    public var logLevel: Logger.Level = .info

    public init() {}

    /// A logger at the chosen level: lines with syslog priorities and no timestamp when
    /// standard error is the systemd journal (``JournalLogHandler``), else the logging system's
    /// default (swift-log's `StreamLogHandler`: a timestamp, the level, the label).
    public func logger(label: String) -> Logger {
        var logger =
            JournalStream.standardErrorIsJournal()
            ? Logger(label: label) { _ in JournalLogHandler() } : Logger(label: label)
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
