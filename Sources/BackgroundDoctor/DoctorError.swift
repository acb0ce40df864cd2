/// Why the doctor could not examine an app at all (as opposed to a finding about it).
public struct DoctorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure, which decides the exit code.
    public enum Code: Sendable, Hashable {
        /// An input file is missing or unreadable (exit 66).
        case inputMissing
        /// An input is not what it should be: a malformed manifest, too many files (exit 65).
        case badInput
    }

    /// The kind of failure.
    public var code: Code
    /// `<input>: <what is wrong>`.
    public var description: String

    /// Creates an error.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The exit code of the project's table: 66 for a missing input, 65 for bad input.
    public var exitCode: Int32 {
        switch code {
        case .inputMissing: 66
        case .badInput: 65
        }
    }
}
