/// Why an app manifest could not be loaded: which key, and what is wrong with it.
///
/// The description reads like a compiler diagnostic: the file (when loading from a URL), the key
/// path, then the problem.
///
/// ```swift
/// do {
///     let manifest = try AppManifest(contentsOf: infoPlistURL)
/// } catch {
///     print(error)
///     // Info.plist: BGTaskSchedulerPermittedIdentifiers[2]: "*" is not a valid identifier: a wildcard
///     // must follow a dot at the end, as in com.example.app.export.*
///     error.code == .invalidValue   // true
/// }
/// ```
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error; extensible without breaking callers.
    ///
    /// ```swift
    /// if error.code == .missingKey { … }
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case unreadable
            case malformed
            case notADictionary
            case missingKey
            case wrongType
            case invalidValue
            case duplicateValue
        }

        private let kind: Kind

        /// The file could not be read; ``ManifestError/posixErrorCode`` says why, when known.
        public static let unreadable = Code(kind: .unreadable)
        /// The data is not a property list or JSON document of the expected format.
        public static let malformed = Code(kind: .malformed)
        /// The document parsed, but its top level is not a dictionary.
        public static let notADictionary = Code(kind: .notADictionary)
        /// A required key is missing.
        public static let missingKey = Code(kind: .missingKey)
        /// A value has the wrong type, for example a string where an array is needed.
        public static let wrongType = Code(kind: .wrongType)
        /// A value has the right type but is not allowed, or the input is too large.
        public static let invalidValue = Code(kind: .invalidValue)
        /// A list contains the same value twice.
        public static let duplicateValue = Code(kind: .duplicateValue)

        /// The code's name, for example `missingKey`.
        public var description: String { kind.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The key path of the offending value, such as `BGTaskSchedulerPermittedIdentifiers[2]`;
    /// nil when the problem concerns the whole document.
    public let key: String?
    /// The problem as a sentence, without the file or the key.
    public let problem: String
    /// The name of the file being loaded, such as `Info.plist`; nil when loading from data.
    public internal(set) var file: String?
    /// The `errno` value behind an ``Code/unreadable`` error, when there is one.
    public let posixErrorCode: Int32?

    /// Creates an error.
    ///
    /// ```swift
    /// ManifestError(code: .missingKey, key: "CFBundleIdentifier", problem: "is missing")
    /// ```
    public init(code: Code, key: String?, problem: String, file: String? = nil, posixErrorCode: Int32? = nil) {
        self.code = code
        self.key = key
        self.problem = problem
        self.file = file
        self.posixErrorCode = posixErrorCode
    }

    /// `file: key: problem`, leaving out whichever of the file and the key is nil.
    public var description: String {
        [file, key, problem].compactMap { $0 }.joined(separator: ": ")
    }
}
