import BackgroundCore
import Foundation

/// Reads and checks the keys of a parsed manifest dictionary, one key at a time.
///
/// Every failure is a ``ManifestError`` that names the key path (`UIBackgroundModes[3]`) and says
/// what is wrong in a sentence.
struct ManifestReader {
    static let bundleIdentifierKey = "CFBundleIdentifier"
    static let permittedIdentifiersKey = "BGTaskSchedulerPermittedIdentifiers"
    static let backgroundModesKey = "UIBackgroundModes"

    let dictionary: [AnyHashable: Any]

    /// `CFBundleIdentifier`: required, a non-empty reverse-DNS string.
    func bundleIdentifier() throws(ManifestError) -> AppID {
        let key = Self.bundleIdentifierKey
        guard let value = dictionary[key] else {
            throw ManifestError(
                code: .missingKey,
                key: key,
                problem: "the key is missing; every manifest needs the app's bundle identifier, such as com.example.app"
            )
        }
        guard let string = value as? String else { throw Self.wrongType(key, expected: "a string", found: value) }
        if let problem = Self.bundleIdentifierProblem(string) {
            throw ManifestError(code: .invalidValue, key: key, problem: problem)
        }
        return AppID(string)
    }

    /// `BGTaskSchedulerPermittedIdentifiers`: optional; nil when absent.
    func permittedTaskIdentifiers(of app: AppID) throws(ManifestError) -> [String]? {
        let key = Self.permittedIdentifiersKey
        guard let strings = try stringArray(key) else { return nil }
        let limit = AppManifest.maximumPermittedTaskIdentifiers
        guard strings.count <= limit else {
            throw ManifestError(
                code: .invalidValue,
                key: key,
                problem: "lists \(strings.count) identifiers; at most \(limit) are allowed"
            )
        }
        var firstIndex: [String: Int] = [:]
        for (index, identifier) in strings.enumerated() {
            let path = "\(key)[\(index)]"
            if let problem = Self.taskIdentifierProblem(identifier, example: "\(app.bundleIdentifier).export.*") {
                throw ManifestError(code: .invalidValue, key: path, problem: problem)
            }
            if let first = firstIndex[identifier] {
                throw ManifestError(
                    code: .duplicateValue,
                    key: path,
                    problem: "\(Self.quoted(identifier)) is already listed at \(key)[\(first)]"
                )
            }
            firstIndex[identifier] = index
        }
        return strings
    }

    /// `UIBackgroundModes`: optional; unknown modes are kept.
    func backgroundModes() throws(ManifestError) -> Set<BackgroundMode> {
        let strings = try stringArray(Self.backgroundModesKey) ?? []
        return Set(strings.map(BackgroundMode.init(rawValue:)))
    }

    /// The value of `key` as an array of strings; nil when the key is absent.
    private func stringArray(_ key: String) throws(ManifestError) -> [String]? {
        guard let value = dictionary[key] else { return nil }
        guard let array = value as? [Any] else {
            throw Self.wrongType(key, expected: "an array of strings", found: value)
        }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let string = element as? String else {
                throw Self.wrongType("\(key)[\(index)]", expected: "a string", found: element)
            }
            strings.append(string)
        }
        return strings
    }

    // MARK: Rules

    /// Why `value` is not a bundle identifier, or nil if it is one.
    ///
    /// Allowed: ASCII letters, digits, `-` and `.`, in non-empty components separated by dots.
    static func bundleIdentifierProblem(_ value: String) -> String? {
        if value.isEmpty { return "must not be empty; use the app's reverse-DNS name, such as com.example.app" }
        let invalid = "\(quoted(value)) is not a valid bundle identifier"
        if let scalar = value.unicodeScalars.first(where: { !isBundleIdentifierScalar($0) }) {
            let shown = scalar == " " ? "a space" : "'\(scalar.escaped(asASCII: true))'"
            return "\(invalid): it contains \(shown); use only letters, digits, hyphens and dots"
        }
        if value.hasPrefix(".") || value.hasSuffix(".") {
            return "\(invalid): it must not start or end with a dot"
        }
        if value.contains("..") {
            return "\(invalid): it must not contain two dots in a row"
        }
        return nil
    }

    /// Why `value` is not a permitted task identifier or wildcard entry, or nil if it is one.
    ///
    /// A `*` may appear only as a trailing `.*` after at least one non-empty component.
    static func taskIdentifierProblem(_ value: String, example: String) -> String? {
        if value.isEmpty { return "must not be empty" }
        guard value.contains("*") else { return nil }
        let invalid = "\(quoted(value)) is not a valid identifier"
        guard let prefix = AppManifest.wildcardPrefix(of: value), !prefix.contains("*") else {
            return "\(invalid): a wildcard must follow a dot at the end, as in \(example)"
        }
        if prefix.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "\(invalid): the components before the wildcard must not be empty, as in \(example)"
        }
        return nil
    }

    private static func isBundleIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".": return true
        default: return false
        }
    }

    // MARK: Messages

    static func wrongType(_ key: String, expected: String, found value: Any) -> ManifestError {
        ManifestError(code: .wrongType, key: key, problem: "expected \(expected), found \(typeDescription(of: value))")
    }

    /// The value in double quotes with special characters escaped, shortened to 80 characters.
    static func quoted(_ value: String) -> String {
        let limit = 80
        let shown = value.count > limit ? String(value.prefix(limit)) + "…" : value
        return String(reflecting: shown)
    }

    /// How a parsed value's type is named in messages: `a string`, `an array`, `a Boolean`, ….
    static func typeDescription(of value: Any) -> String {
        switch value {
        case is String: return "a string"
        case let number as NSNumber:
            // Booleans are NSNumbers whose Objective-C type is `c` (char), in both parsers.
            return String(cString: number.objCType) == "c" ? "a Boolean" : "a number"
        case is [Any]: return "an array"
        case is [AnyHashable: Any]: return "a dictionary"
        case is Date: return "a date"
        case is Data: return "data"
        case is NSNull: return "null"
        default: return "a value of type \(type(of: value))"
        }
    }
}
