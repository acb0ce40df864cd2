import BackgroundExecution
import BackgroundSimulator
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

    /// The effect's line, for the effects a reader of the demo cares about: the simulator's
    /// wording, without the answers the caller already has and the termination (the report
    /// that follows says it in full).
    static func describe(_ effect: Effect) -> String? {
        switch effect {
        case .terminate, .launch: return nil
        default: return effect.logLine.map { "system: " + $0 }
        }
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
