/// The identifier of one background task assertion within its app.
///
/// Identifiers are small integers that increase from 1 per app, as on iOS ("no background task
/// exists with identifier 1 (0x1)"). `0` is never issued; the API maps it to `.invalid`.
public struct AssertionID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static func < (lhs: AssertionID, rhs: AssertionID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `N (0xN)`, the way UIKit prints identifiers.
    public var description: String { "\(rawValue) (0x\(String(rawValue, radix: 16)))" }
}

/// One outstanding background task assertion: a "don't suspend me" claim made by app code.
public struct Assertion: Sendable, Hashable, Codable {
    /// The identifier the app uses to end it.
    public let id: AssertionID
    /// The name given to `beginBackgroundTask(withName:)`, or one generated from the caller.
    public let name: String
    /// Where the app began it.
    public let origin: CallSite
    /// When it was begun.
    public let beganAt: Instant
    /// Whether the app supplied an expiration handler.
    public let hasExpirationHandler: Bool
    /// Whether its expiration handler has been called (each handler is called at most once).
    public internal(set) var expirationDelivered: Bool

    /// Creates an assertion record.
    public init(
        id: AssertionID,
        name: String,
        origin: CallSite,
        beganAt: Instant,
        hasExpirationHandler: Bool,
        expirationDelivered: Bool = false
    ) {
        self.id = id
        self.name = name
        self.origin = origin
        self.beganAt = beganAt
        self.hasExpirationHandler = hasExpirationHandler
        self.expirationDelivered = expirationDelivered
    }
}
