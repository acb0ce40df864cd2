/// Why a scenario file was rejected: where, what kind of problem, and a sentence saying what is wrong.
///
/// The description reads like a compiler diagnostic, `path: message`, preceded by the file name
/// when the scenario was loaded from a file:
///
/// ```swift
/// do {
///     let scenario = try Scenario.load(contentsOf: url)
/// } catch {
///     print(error)
///     // news.json: apps[0].onlaunch: unknown key "onlaunch"; did you mean "onLaunch"?
///     error.code == .unknownKey   // true
///     error.suggestion            // "onLaunch"
/// }
/// ```
///
/// Every problem with the input is a `ScenarioError`; decoding never traps, whatever the input.
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error; extensible without breaking callers.
    ///
    /// ```swift
    /// if error.code == .unknownReference { … }
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case unreadable
            case limitExceeded
            case malformedJSON
            case unsupportedVersion
            case wrongType
            case missingKey
            case unknownKey
            case invalidValue
            case outOfRange
            case duplicate
            case unknownReference
            case conflict
        }

        private let kind: Kind

        /// The file could not be read.
        public static let unreadable = Code(kind: .unreadable)
        /// The input is larger than a limit allows: the file (16 MiB), a string (4096 characters),
        /// the nesting depth (64), or the number of apps, steps, actions or occurrences.
        public static let limitExceeded = Code(kind: .limitExceeded)
        /// The data is not valid JSON (or not UTF-8); the message gives the line and column.
        public static let malformedJSON = Code(kind: .malformedJSON)
        /// `formatVersion` is not one this build reads.
        public static let unsupportedVersion = Code(kind: .unsupportedVersion)
        /// A value has the wrong JSON type, for example a number where a string is needed.
        public static let wrongType = Code(kind: .wrongType)
        /// A required key is missing.
        public static let missingKey = Code(kind: .missingKey)
        /// An object has a key the format does not define; ``ScenarioError/suggestion`` may name
        /// the key that was probably meant.
        public static let unknownKey = Code(kind: .unknownKey)
        /// A value has the right type but is not allowed: a malformed duration or time, an
        /// unknown enumeration value, an empty name.
        public static let invalidValue = Code(kind: .invalidValue)
        /// A number or duration is outside its range, or a time falls outside the scenario.
        public static let outOfRange = Code(kind: .outOfRange)
        /// A value that must be unique appears twice (app ids, object keys, expectations).
        public static let duplicate = Code(kind: .duplicate)
        /// A value names an app that the scenario does not define.
        public static let unknownReference = Code(kind: .unknownReference)
        /// Two values contradict each other, or a key is not allowed next to another one.
        public static let conflict = Code(kind: .conflict)

        /// The code's name, for example `unknownKey`.
        public var description: String { kind.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// Where: a path from the top of the document such as `apps[0].tasks["com.x.refresh"].work`;
    /// empty when the problem concerns the whole document.
    public let path: String
    /// The problem as a sentence, without the file or the path.
    public let message: String
    /// The value that was probably meant, for ``Code/unknownKey`` and ``Code/invalidValue``
    /// errors with a close match (edit distance at most 2), such as `onLaunch` for `onlaunch`.
    public let suggestion: String?
    /// The name of the file, when the scenario was loaded with ``Scenario/load(contentsOf:)``.
    public internal(set) var file: String?

    /// Creates an error.
    ///
    /// ```swift
    /// ScenarioError(code: .missingKey, path: "apps[0].id", message: "the required key \"id\" is missing")
    /// ```
    public init(code: Code, path: String, message: String, suggestion: String? = nil, file: String? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.suggestion = suggestion
        self.file = file
    }

    /// `file: path: message`, leaving out the file and the path when they are absent or empty.
    public var description: String {
        [file, path.isEmpty ? nil : path, message].compactMap { $0 }.joined(separator: ": ")
    }
}
