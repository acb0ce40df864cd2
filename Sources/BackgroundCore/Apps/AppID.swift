/// The identity of one app: its bundle identifier.
///
/// Everything the system keeps (assertions, budgets, reports) is kept per `AppID`, and no event
/// for one app can read or change another app's records.
public struct AppID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The bundle identifier, for example `com.example.notes`.
    public let bundleIdentifier: String

    /// Creates an app identity from its bundle identifier.
    public init(_ bundleIdentifier: String) {
        self.bundleIdentifier = bundleIdentifier
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bundleIdentifier)
    }

    public static func < (lhs: AppID, rhs: AppID) -> Bool { lhs.bundleIdentifier < rhs.bundleIdentifier }

    /// The bundle identifier, with control characters escaped (it is shown in logs and reports).
    public var description: String { ControlCharacters.escaped(bundleIdentifier) }
}
