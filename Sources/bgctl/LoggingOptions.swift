public import ArgumentParser
import Logging

/// `--log-level` for the example services: how much the embedded system logs (swift-log's
/// levels; default info). `--log-level warning` keeps only problems.
struct LoggingOptions: ParsableArguments {
    @Option(help: "The lowest level logged: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    /// A logger at the chosen level.
    func logger(label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Checks a number of seconds given on the command line: finite, within `range`.
func validateSeconds(_ value: Double, _ flag: String, _ range: ClosedRange<Double>) throws {
    guard value.isFinite, range.contains(value) else {
        throw ValidationError(
            "\(flag) must be a number of seconds from \(range.lowerBound) to \(range.upperBound), not \(value)"
        )
    }
}
