public import ArgumentParser
public import Logging

/// `--log-level`, the one definition every command-line tool of the project uses (`backgroundd`,
/// `bgctl`'s example services): swift-log's levels, default info; `--log-level warning` keeps
/// only problems. A value that is not a level is a usage error (exit 64) listing the levels.
public struct LoggingOptions: ParsableArguments {
    @Option(help: "The lowest level logged: trace, debug, info, notice, warning, error or critical.")
    public var logLevel: Logger.Level = .info

    public init() {}

    /// A logger at the chosen level.
    public func logger(label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
