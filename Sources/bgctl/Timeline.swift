import BackgroundExecution
import Synchronization

/// Collects a readable timeline of what an app did and what the system did in answer.
final class Timeline: Sendable {
    private let lines = Mutex<[String]>([])

    /// Records a line at an instant.
    func note(_ instant: Instant, _ text: String) {
        let stamp = instant.description.padding(toLength: 11)
        lines.withLock { $0.append("  \(stamp) \(text)") }
    }

    /// Records text as it is (headings, reports).
    func raw(_ text: String) {
        lines.withLock { $0.append(text) }
    }

    /// Records the system's effect, if it is worth a line.
    func observe(_ instant: Instant, _ effect: Effect) {
        guard let text = Self.describe(effect) else { return }
        note(instant, text)
    }

    /// Everything recorded, one line each.
    var text: String { lines.withLock { $0.joined(separator: "\n") } + "\n" }

    static func describe(_ effect: Effect) -> String? {
        switch effect {
        case .assertionGranted(_, let id): return "system: assertion #\(id.rawValue) granted"
        case .assertionDenied(_, let name, let reason): return "system: \"\(name)\" not granted (\(reason))"
        case .runExpirationHandler(_, let id): return "system: calling the expiration handler of #\(id.rawValue)"
        case .stateChanged(_, let from, let to): return "system: \(from) → \(to)"
        case .exit(_, let status, _): return "system: process exits with status \(status)"
        case .backgroundRefreshStatusChanged(_, let status): return "system: Background App Refresh \(status)"
        case .log(let record) where record.level >= .notice: return "system: \(record.message)"
        case .runTasks(_, let runs):
            return "system: runs "
                + runs.map { "\"\($0.request.identifier)\" (\($0.request.kind))" }.joined(separator: ", ")
        case .expireTask(_, let id): return "system: expiring \(id)"
        case .taskFinished(_, let id, let outcome): return "system: \(id) \(outcome.rawValue)"
        case .taskRequestRejected(_, let identifier, let code):
            return "system: submit(\"\(identifier)\") refused: \(code)"
        case .fault(_, let message): return "system: fault: \(message)"
        case .log, .suspend, .terminate, .scheduleWakeup, .cancelWakeup, .deliverDidEnterBackground,
            .deliverBackgroundWake,
            .taskHandlerRegistered, .taskHandlerRefused, .taskRequestAccepted, .persist:
            return nil
        }
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
