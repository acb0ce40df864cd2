import BackgroundExecution
import CommandOutput
import Foundation

/// `bgctl why`'s answer: for each request asked about, whether it can run, every unmet
/// condition, the deciding factor and the earliest possible run. An identifier with no pending
/// request is a negative answer (exit status 1).
struct WhyResult: CommandResult {
    /// One request's explanation, or the note that nothing is pending under its identifier.
    struct Request: Encodable {
        /// One unmet condition: a word for programs, a sentence for people, and when it clears.
        struct Condition: Encodable {
            var condition: String
            var description: String
            var clearsAt: Date?
        }

        var identifier: String
        var pending: Bool
        var kind: String?
        var eligibleNow: Bool?
        var unmet: [Condition]?
        var decidingFactor: String?
        var earliestPossibleRun: Date?
        var text: String

        static func unknown(_ identifier: String) -> Request {
            Request(
                identifier: identifier,
                pending: false,
                text: "\(identifier): no pending task request with this identifier\n"
            )
        }

        init(
            identifier: String,
            pending: Bool,
            kind: String? = nil,
            eligibleNow: Bool? = nil,
            unmet: [Condition]? = nil,
            decidingFactor: String? = nil,
            earliestPossibleRun: Date? = nil,
            text: String
        ) {
            self.identifier = identifier
            self.pending = pending
            self.kind = kind
            self.eligibleNow = eligibleNow
            self.unmet = unmet
            self.decidingFactor = decidingFactor
            self.earliestPossibleRun = earliestPossibleRun
            self.text = text
        }

        init(_ why: Eligibility, date: (Instant) -> Date) {
            let format = { (instant: Instant) in ISO8601DateFormatter().string(from: date(instant)) }
            self.init(
                identifier: why.request.identifier,
                pending: true,
                kind: "\(why.request.kind)",
                eligibleNow: why.isEligible,
                unmet: why.unmet.map {
                    Condition(condition: $0.word, description: $0.description, clearsAt: $0.clearsAt.map(date))
                },
                decidingFactor: why.decidingFactor?.word,
                earliestPossibleRun: date(why.earliestRun),
                text: why.renderText(formatInstant: format)
            )
        }
    }

    var app: String
    var requests: [Request]

    /// Whether an identifier asked about has no pending request.
    var hasUnknownIdentifier: Bool { requests.contains { !$0.pending } }

    var text: String {
        requests.isEmpty ? "no pending task requests\n" : requests.map(\.text).joined()
    }
}

extension UnmetCondition {
    /// The condition's name, for JSON: `requiresExternalPower`, `rateLimited`.
    var word: String {
        switch self {
        case .notBefore: "notBefore"
        case .requiresExternalPower: "requiresExternalPower"
        case .requiresNetwork: "requiresNetwork"
        case .deviceInUse: "deviceInUse"
        case .notUnlockedSinceBoot: "notUnlockedSinceBoot"
        case .batteryCriticallyLow: "batteryCriticallyLow"
        case .lowPowerMode: "lowPowerMode"
        case .backgroundAppRefreshOff: "backgroundAppRefreshOff"
        case .forceQuit: "forceQuit"
        case .appNotUsedRecently: "appNotUsedRecently"
        case .awaitingPredictedUse: "awaitingPredictedUse"
        case .budgetExhausted: "budgetExhausted"
        case .rateLimited: "rateLimited"
        case .concurrencyLimit: "concurrencyLimit"
        case .systemBusy: "systemBusy"
        case .cellularNotAllowed: "cellularNotAllowed"
        case .expensiveNetworkNotAllowed: "expensiveNetworkNotAllowed"
        case .constrainedNetworkNotAllowed: "constrainedNetworkNotAllowed"
        case .requiresUnmeteredNetwork: "requiresUnmeteredNetwork"
        }
    }
}
