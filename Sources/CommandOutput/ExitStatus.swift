/// The project's one table of exit codes, shared by every command (`bgctl`, the daemon's
/// commands, the doctor). sysexits(3) numbers where they fit; 1 and 2 are answers, not failures.
///
/// The table is documented once, in `docs/exit-codes.md`, and a test keeps that page and this
/// type in step.
public enum ExitStatus: Int32, CaseIterable, Sendable, Codable {
    /// The command did what was asked and the answer is positive.
    case success = 0
    /// The command ran and the answer is negative: an expectation failed, the fuzzer found a
    /// violation, the task identifier is unknown, the doctor has warnings.
    case negativeAnswer = 1
    /// The doctor found errors: code that Apple would crash on or refuse.
    case doctorErrors = 2
    /// A bad flag or value on the command line (`EX_USAGE`).
    case usage = 64
    /// The input is malformed: a scenario, manifest, store or frame that cannot be read as one
    /// (`EX_DATAERR`).
    case badInput = 65
    /// An input file is missing or unreadable (`EX_NOINPUT`).
    case inputMissing = 66
    /// The service is unavailable: the app or the daemon is not running or not reachable
    /// (`EX_UNAVAILABLE`).
    case unavailable = 69
    /// An internal error: a bug in this project (`EX_SOFTWARE`).
    case internalError = 70
    /// An output file or directory cannot be created (`EX_CANTCREAT`).
    case cannotCreateOutput = 73
    /// Reading or writing failed part-way (`EX_IOERR`).
    case ioError = 74
    /// Waiting for an answer timed out (`EX_TEMPFAIL`).
    case timedOut = 75
    /// Permission denied, or the peer is not the app it claims to be (`EX_NOPERM`).
    case permissionDenied = 77

    /// What the code means, in the words of the documented table.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .negativeAnswer:
            "the command ran and the answer is negative (an expectation failed, a fuzz violation, "
                + "an unknown task identifier, doctor warnings)"
        case .doctorErrors: "the doctor found errors (Apple would crash or refuse)"
        case .usage: "usage error: a bad flag or value"
        case .badInput: "bad input data: a malformed scenario, manifest, store or frame"
        case .inputMissing: "an input file is missing or unreadable"
        case .unavailable: "unavailable: the app or the daemon is not running or not reachable"
        case .internalError: "internal error (a bug: please report it)"
        case .cannotCreateOutput: "an output file or directory cannot be created"
        case .ioError: "I/O error while reading or writing"
        case .timedOut: "timed out waiting for an answer"
        case .permissionDenied: "permission denied, or not the app it claims to be"
        }
    }

    /// A short name for JSON output and logs (`"negative-answer"`).
    public var name: String {
        switch self {
        case .success: "success"
        case .negativeAnswer: "negative-answer"
        case .doctorErrors: "doctor-errors"
        case .usage: "usage"
        case .badInput: "bad-input"
        case .inputMissing: "input-missing"
        case .unavailable: "unavailable"
        case .internalError: "internal-error"
        case .cannotCreateOutput: "cannot-create-output"
        case .ioError: "io-error"
        case .timedOut: "timed-out"
        case .permissionDenied: "permission-denied"
        }
    }

    /// The table as Markdown rows (`| 0 | success |`), as `docs/exit-codes.md` shows it.
    public static var markdownTable: String {
        (["| code | meaning |", "|---|---|"] + allCases.map { "| \($0.rawValue) | \($0.meaning) |" })
            .joined(separator: "\n")
    }
}
