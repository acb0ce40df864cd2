import Foundation

/// A silent push's payload: the JSON object APNs delivers (`{"aps": {"content-available": 1}, ...}`),
/// checked at the edge before it reaches the system, and turned into the `userInfo` dictionary
/// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` receives.
///
/// ```swift
/// let payload = try RemoteNotificationPayload(json: #"{"aps":{"content-available":1},"id":7}"#)
/// try system.deliverRemoteNotification(payload)
/// ```
public struct RemoteNotificationPayload: Sendable, Hashable {
    /// APNs' limit for a notification's payload: 4096 bytes.
    public static let maximumSize = 4096

    /// The payload's JSON text, as received.
    public let json: String

    /// Why a payload is refused.
    public struct Invalid: Error, Hashable, CustomStringConvertible {
        /// What is wrong, in one sentence.
        public let reason: String
        public var description: String { reason }
    }

    /// Checks a payload: a JSON object of at most ``maximumSize`` bytes.
    ///
    /// - Throws: ``Invalid`` when the text is too large, not JSON, or not an object.
    public init(json: String) throws(Invalid) {
        let bytes = Data(json.utf8)
        guard bytes.count <= Self.maximumSize else {
            throw Invalid(reason: "the payload is \(bytes.count) bytes; APNs allows at most \(Self.maximumSize)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: bytes), object is [String: Any] else {
            throw Invalid(reason: "the payload is not a JSON object")
        }
        self.json = json
    }

    /// The payload as `userInfo`; an empty dictionary for text that is not a JSON object.
    static func userInfo(fromJSON json: String) -> [AnyHashable: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return [:]
        }
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in object { userInfo[key] = value }
        return userInfo
    }
}
