/// Everything the system can say about one request identifier: why it waits now, its history,
/// what would let it run, and when it will likely run (an estimate, labelled as one).
///
/// ```swift
/// if let explanation = system.explanation(of: app, identifier: "com.example.notes.db-cleanup", at: now) {
///     print(explanation.renderText())
/// }
/// ```
public struct RequestExplanation: Sendable, Hashable, Codable {
    /// The request identifier.
    public var identifier: String
    /// Why the pending request has not run, `nil` when none is pending.
    public var eligibility: Eligibility?
    /// Its recent runs and the pending request's waits so far.
    public var history: RequestHistory
    /// The changes that would let it run, computed on copies of the system.
    public var whatIfs: [WhatIf]
    /// The likely range of its run: the project's own estimate.
    public var likelyRange: LikelyRange?
}

extension BackgroundSystem {
    /// The full explanation of a request identifier (pending, or with runs in its history).
    ///
    /// - Returns: `nil` when the identifier is neither pending nor in the history.
    public func explanation(of app: AppID, identifier: String, at now: Instant) -> RequestExplanation? {
        let why = eligibility(of: app, identifier: identifier, at: now)
        let past = history(of: app, identifier: identifier, at: now)
        guard why != nil || !past.runs.isEmpty else { return nil }
        return RequestExplanation(
            identifier: identifier,
            eligibility: why,
            history: past,
            whatIfs: whatIfs(of: app, identifier: identifier, at: now),
            likelyRange: likelyRange(of: app, identifier: identifier, at: now)
        )
    }

    /// Every identifier of the app with a pending request or a recorded run, sorted.
    public func explainedIdentifiers(of app: AppID) -> [String] {
        var identifiers = Set(history.runs[app]?.keys.map { $0 } ?? [])
        identifiers.formUnion(pendingRequests(of: app).map(\.identifier))
        return identifiers.sorted()
    }
}

extension RequestExplanation {
    /// The explanation as text: the eligibility, then the history, the what-ifs and the range.
    ///
    /// - Parameter formatInstant: How to print instants; the shell passes wall-clock dates.
    public func renderText(formatInstant: (Instant) -> String = { $0.description }) -> String {
        var text = eligibility?.renderText(formatInstant: formatInstant) ?? "\(identifier): nothing pending\n"
        text += history.renderText(formatInstant: formatInstant)
        if !whatIfs.isEmpty {
            text += "  what if (computed on a copy of the system):\n"
            for whatIf in whatIfs {
                let changes = whatIf.changes.map(\.description).joined(separator: " and ")
                let outcome: String
                if whatIf.eligibility.isEligible {
                    outcome = "it could run now"
                } else if let at = whatIf.runsAt {
                    outcome = "it could run at \(formatInstant(at))"
                } else {
                    let left = whatIf.eligibility.unmet.filter { $0.clearsAt == nil }.map(\.description)
                    outcome = "it still waits: " + left.joined(separator: ", ")
                }
                var held = ""
                if let heldBack = whatIf.heldBack {
                    held = " (waiting for \(heldBack.reason) since \(formatInstant(heldBack.since)))"
                }
                text += "    - if \(changes): \(outcome)\(held)\n"
            }
        }
        if let range = likelyRange {
            if let latest = range.latest {
                text += "  likely run: between \(formatInstant(range.earliest)) and \(formatInstant(latest))"
                if !range.basis.isEmpty { text += " (from \(range.basis.joined(separator: ", ")))" }
            } else {
                text +=
                    "  likely run: not before \(formatInstant(range.earliest)); no estimate beyond that, it "
                    + range.basis.joined(separator: "; ")
            }
            text += "; the project's own estimate, not Apple's\n"
        }
        return text
    }
}

extension RequestHistory {
    /// The history as text: each recent run, then the pending request's waits so far.
    public func renderText(formatInstant: (Instant) -> String = { $0.description }) -> String {
        var text = ""
        if runs.isEmpty { text += "  history: no run recorded\n" } else { text += "  history (oldest first):\n" }
        for run in runs {
            text +=
                "    - ran at \(formatInstant(run.startedAt)) for \(DurationText.format(run.duration)): "
                + "\(run.outcome.rawValue); had waited \(DurationText.format(run.waited))"
                + Self.waitsText(run.waits) + "\n"
        }
        if let since = pendingSince {
            text += "  pending since \(formatInstant(since))" + Self.waitsText(waiting) + "\n"
        }
        return text
    }

    static func waitsText(_ waits: [ConditionWait]) -> String {
        guard !waits.isEmpty else { return "" }
        return "; waited for "
            + waits.map { "\($0.reason) \(DurationText.format($0.duration))" }.joined(separator: ", ")
    }
}

/// Durations as people read them: `6h`, `4h 40m`, `15m`, `30s`.
public enum DurationText {
    /// Formats a duration to the second, dropping zero parts.
    public static func format(_ duration: Duration) -> String {
        let total = Int(duration.components.seconds)
        guard total > 0 else { return "0s" }
        let parts = [(total / 86_400, "d"), (total % 86_400 / 3600, "h"), (total % 3600 / 60, "m"), (total % 60, "s")]
        return parts.filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }.joined(separator: " ")
    }
}
