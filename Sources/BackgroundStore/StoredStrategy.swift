import BackgroundCore

/// The names under which the store keeps ``TaskRequest/SubmissionStrategy`` values.
enum StoredStrategy {
    /// The stored name of `strategy`.
    static func name(of strategy: TaskRequest.SubmissionStrategy) -> String {
        switch strategy {
        case .fail: return "fail"
        case .queue: return "queue"
        }
    }

    /// The strategy stored under `name`, or `nil` for an unknown name.
    static func strategy(named name: String) -> TaskRequest.SubmissionStrategy? {
        switch name {
        case "fail": return .fail
        case "queue": return .queue
        default: return nil
        }
    }
}
