public import BackgroundCore

/// What happened to a background transfer in the simulator: the lines of the log and the
/// transfer lane of the timeline.
public enum TransferActivity: Sendable, Hashable, CustomStringConvertible {
    /// The app resumed a transfer of `size` bytes (`kind`: download or upload).
    case queued(TransferKey, TransferKind, size: Int64)
    /// It waits: the unmet conditions, as `bgctl why` names them.
    case waiting(TransferKey, [UnmetCondition])
    /// Bytes start moving from `from` (0, or a resumed offset).
    case started(TransferKey, from: Int64)
    /// `bytes` of `size` have moved (every quarter of the size).
    case progress(TransferKey, bytes: Int64, size: Int64)
    /// An attempt failed (a dropped connection, a `5xx`); a retry follows `retryAfter` later.
    case interrupted(TransferKey, reason: String, retryAfter: Duration)
    /// The system paused it (its conditions stopped holding) at `bytes`.
    case paused(TransferKey, bytes: Int64, [UnmetCondition])
    /// It completed with a response (`status`) after `bytes` bytes.
    case completed(TransferKey, status: Int, bytes: Int64)
    /// It ended with an error (`NSURLErrorDomain`'s `code`: -999 cancelled…).
    case failed(TransferKey, code: Int, reason: String)
    /// The system launched or resumed the app in the background to deliver its sessions' events.
    case relaunched(AppID, sessions: [String])
    /// The app called the completion handler of `handleEventsForBackgroundURLSession`.
    case eventsHandled(AppID, session: String)

    /// The app concerned.
    public var app: AppID {
        switch self {
        case .queued(let key, _, _), .waiting(let key, _), .started(let key, _), .progress(let key, _, _),
            .interrupted(let key, _, _), .paused(let key, _, _), .completed(let key, _, _), .failed(let key, _, _):
            return key.app
        case .relaunched(let app, _), .eventsHandled(let app, _): return app
        }
    }

    /// The transfer concerned, if one.
    public var key: TransferKey? {
        switch self {
        case .queued(let key, _, _), .waiting(let key, _), .started(let key, _), .progress(let key, _, _),
            .interrupted(let key, _, _), .paused(let key, _, _), .completed(let key, _, _), .failed(let key, _, _):
            return key
        case .relaunched, .eventsHandled: return nil
        }
    }

    public var description: String {
        switch self {
        case .queued(let key, let kind, let size): return "transfer \(key.identifier): \(kind) of \(size) bytes queued"
        case .waiting(let key, let unmet): return "transfer \(key.identifier) waits: \(Self.words(unmet))"
        case .started(let key, let from):
            return from == 0
                ? "transfer \(key.identifier) starts" : "transfer \(key.identifier) resumes at byte \(from)"
        case .progress(let key, let bytes, let size): return "transfer \(key.identifier): \(bytes) of \(size) bytes"
        case .interrupted(let key, let reason, let retryAfter):
            return "transfer \(key.identifier) interrupted: \(reason); retry in \(retryAfter.formattedSeconds) s"
        case .paused(let key, let bytes, let unmet):
            return "transfer \(key.identifier) paused at byte \(bytes): \(Self.words(unmet))"
        case .completed(let key, let status, let bytes):
            return "transfer \(key.identifier) completed: HTTP \(status), \(bytes) bytes"
        case .failed(let key, let code, let reason): return "transfer \(key.identifier) failed: \(code) (\(reason))"
        case .relaunched(_, let sessions):
            return "relaunched for URLSession events: \(sessions.joined(separator: ", "))"
        case .eventsHandled(_, let session): return "handleEventsForBackgroundURLSession(\(session)) completed"
        }
    }

    static func words(_ unmet: [UnmetCondition]) -> String {
        unmet.isEmpty ? "its turn" : unmet.map(\.description).joined(separator: ", ")
    }
}
