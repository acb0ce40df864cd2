public import BackgroundCore

/// An invariant that did not hold: which, when, for which app, and what was seen.
public struct InvariantViolation: Sendable, Hashable, CustomStringConvertible {
    /// The rules the checker enforces after every event.
    public enum Invariant: String, Sendable, Hashable, Codable, CaseIterable {
        /// Every assertion ends exactly once, or its app is terminated with a report naming it.
        case assertionEndsOnce
        /// Expiration always precedes a watchdog termination.
        case expirationBeforeWatchdog
        /// No suspended (or ended) app runs code.
        case suspendedAppRunsNoCode
        /// No task runs before its earliest date or without its required power and network.
        case taskConditionsHold
        /// Budgets and pending limits hold.
        case limitsHold
        /// After a reboot no pending request is lost.
        case rebootKeepsRequests
        /// Every explanation's earliest time is honest: no request runs before it.
        case honestExplanations
        /// Time moves on: the system and the apps never keep each other busy at one instant.
        case timeMovesOn
        /// No app is suspended while it holds a background mode's activity (issue 11).
        case modesKeepAppsRunning
        /// Background transfers: none completes while the network is down, bytes never exceed
        /// the size, a force-quit app's transfers never complete (issue 12).
        case transfersHold
        /// A rule added by the test (``Simulator/addInvariant(_:_:)``).
        case custom

        /// The rule in words.
        public var statement: String {
            switch self {
            case .assertionEndsOnce:
                return "every assertion ends exactly once, or its app is terminated with a report naming it"
            case .expirationBeforeWatchdog: return "expiration always precedes a watchdog termination"
            case .suspendedAppRunsNoCode: return "no suspended app runs code"
            case .taskConditionsHold:
                return "no task runs before its earliest date or without its required power and network"
            case .limitsHold: return "budgets and pending limits hold"
            case .rebootKeepsRequests: return "after a reboot no pending request is lost"
            case .honestExplanations: return "every explanation's earliest time is honest"
            case .timeMovesOn: return "time moves on: no endless work at one instant"
            case .modesKeepAppsRunning: return "no app is suspended while it holds a background mode"
            case .transfersHold:
                return "no transfer completes offline, moves more than its size, or completes after a force quit"
            case .custom: return "a rule added by the test"
            }
        }
    }

    /// The rule broken.
    public var invariant: Invariant
    /// What was seen.
    public var message: String
    /// When.
    public var at: Instant
    /// The app concerned, if one.
    public var app: AppID?

    /// Creates a violation.
    public init(_ invariant: Invariant, _ message: String, at: Instant, app: AppID? = nil) {
        self.invariant = invariant
        self.message = message
        self.at = at
        self.app = app
    }

    public var description: String {
        let subject = app.map { " [\($0)]" } ?? ""
        return "\(at)\(subject) violated \"\(invariant.statement)\": \(message)"
    }
}
