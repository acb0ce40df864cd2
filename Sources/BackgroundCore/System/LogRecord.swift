/// A message the system logs, with its severity; the shells route it to swift-log or a timeline.
public struct LogRecord: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Severity, in swift-log's order.
    public enum Level: String, Sendable, Hashable, Codable, Comparable {
        case debug, info, notice, warning, error

        private var rank: Int {
            switch self {
            case .debug: return 0
            case .info: return 1
            case .notice: return 2
            case .warning: return 3
            case .error: return 4
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
    }

    /// The severity.
    public var level: Level
    /// The app the message is about, if any.
    public var app: AppID?
    /// The message text.
    public var message: String

    /// Creates a log record.
    public init(_ level: Level, app: AppID?, _ message: String) {
        self.level = level
        self.app = app
        self.message = message
    }

    public var description: String {
        "[\(level.rawValue)]" + (app.map { " \($0):" } ?? "") + " " + message
    }
}
