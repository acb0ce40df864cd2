/// A running app's answer to a ``DebugCommand``.
public struct DebugReply: Codable, Sendable, Hashable {
    /// How the command ended.
    public enum Outcome: String, Codable, Sendable, Hashable {
        /// Carried out; the text is the answer.
        case done
        /// The task identifier named no pending request or running task.
        case notFound
        /// The command was malformed or not allowed; the text says why.
        case rejected
    }

    /// The protocol version (``ControlFrame/version``).
    public var version: Int
    /// How the command ended.
    public var outcome: Outcome
    /// The answer as text, one or more lines ending in a newline.
    public var text: String
    /// The answer as one JSON document (``WhyDocument`` or ``StatusDocument``), when the
    /// command asked for it (``DebugCommand/json``).
    public var document: String?

    /// Creates a reply.
    public init(_ outcome: Outcome, _ text: String, document: String? = nil) {
        self.version = ControlFrame.version
        self.outcome = outcome
        self.text = text
        self.document = document
    }

    /// The largest reply accepted, in bytes.
    public static let maximumSize = 1 << 20
}
