/// How bad a finding is: what Apple does decides it.
///
/// `error`: Apple crashes the app, refuses the request or kills the app. `warning`: work
/// silently never happens, or is ignored. `note`: the doctor could not check something.
public enum Severity: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    case note
    case warning
    case error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// One check the doctor makes, with a stable identifier a project can silence (`--ignore BGD003`).
///
/// ```swift
/// DoctorRule.submittedNotRegistered.id          // "BGD003"
/// DoctorRule.submittedNotRegistered.severity    // .error: Apple crashes the app
/// ```
public struct DoctorRule: Sendable, Hashable, Codable, Identifiable {
    /// The stable identifier, `BGD` and three digits.
    public let id: String
    /// A short kebab-case name, as code-scanning tools show it.
    public let name: String
    /// How bad it is.
    public let severity: Severity
    /// One sentence: what the rule checks.
    public let summary: String
    /// What Apple does when the mistake ships, in general terms (a finding names the identifier).
    public let appleBehaviour: String

    /// Every rule, by identifier.
    public static let all: [DoctorRule] = [
        .identifierNotPermitted, .permittedNeverRegistered, .submittedNotRegistered, .missingBackgroundMode,
        .manifestWrongType, .registrationAfterLaunch, .fetchDisabledByPermittedIdentifiers, .unknownBackgroundMode,
        .backgroundTaskNeverEnded, .unresolvedIdentifier, .duplicateRegistration, .wildcardForm,
        .cancelUnknownIdentifier,
    ]

    /// The rule with this identifier or name, if any.
    public static func named(_ idOrName: String) -> DoctorRule? {
        all.first { $0.id.caseInsensitiveEquals(idOrName) || $0.name == idOrName }
    }

    public static let identifierNotPermitted = DoctorRule(
        id: "BGD001",
        name: "identifier-not-permitted",
        severity: .error,
        summary:
            "A task identifier is registered or submitted but not permitted by BGTaskSchedulerPermittedIdentifiers.",
        appleBehaviour:
            "register(forTaskWithIdentifier:using:launchHandler:) returns false (\"if the identifier isn't included "
            + "in the BGTaskSchedulerPermittedIdentifiers\"), and submit(_:) throws BGTaskScheduler.Error.notPermitted "
            + "(code 3, BGTaskSchedulerErrorDomain)"
    )
    public static let permittedNeverRegistered = DoctorRule(
        id: "BGD002",
        name: "permitted-never-registered",
        severity: .warning,
        summary: "A permitted identifier is never registered in the sources.",
        appleBehaviour:
            "when a request with this identifier is submitted or launched, the app crashes with "
            + "NSInternalInconsistencyException \"No launch handler registered for task with identifier <id>\""
    )
    public static let submittedNotRegistered = DoctorRule(
        id: "BGD003",
        name: "submitted-not-registered",
        severity: .error,
        summary: "A request is created for an identifier that is never registered.",
        appleBehaviour:
            "submit(_:) crashes the app with NSInternalInconsistencyException "
            + "\"No launch handler registered for task with identifier <id>\""
    )
    public static let missingBackgroundMode = DoctorRule(
        id: "BGD004",
        name: "missing-background-mode",
        severity: .error,
        summary: "UIBackgroundModes lacks 'fetch' or 'processing' for the kinds of request the app submits.",
        appleBehaviour: "submit(_:) throws BGTaskScheduler.Error.notPermitted (code 3, BGTaskSchedulerErrorDomain)"
    )
    public static let manifestWrongType = DoctorRule(
        id: "BGD005",
        name: "manifest-wrong-type",
        severity: .error,
        summary: "An Info.plist key has the wrong type (a list written as a dictionary or a string).",
        appleBehaviour:
            "iOS cannot read the key as a list of strings, so none of its values count (our reading: as if the key "
            + "were absent): register returns false and submit(_:) throws BGTaskScheduler.Error.notPermitted (code 3)"
    )
    public static let registrationAfterLaunch = DoctorRule(
        id: "BGD006",
        name: "registration-after-launch",
        severity: .error,
        summary:
            "A launch handler is registered outside launch: in a Task, after an await, in a view or a later callback.",
        appleBehaviour:
            "the app crashes with NSInternalInconsistencyException "
            + "\"All launch handlers must be registered before application finishes launching\""
    )
    public static let fetchDisabledByPermittedIdentifiers = DoctorRule(
        id: "BGD007",
        name: "fetch-disabled-by-permitted-identifiers",
        severity: .warning,
        summary: "setMinimumBackgroundFetchInterval is called while BGTaskSchedulerPermittedIdentifiers exists.",
        appleBehaviour:
            "silently nothing: \"In iOS 13 and later, adding a BGTaskSchedulerPermittedIdentifiers key … disables "
            + "application(_:performFetchWithCompletionHandler:) and setMinimumBackgroundFetchInterval(_:)\""
    )
    public static let unknownBackgroundMode = DoctorRule(
        id: "BGD008",
        name: "unknown-background-mode",
        severity: .warning,
        summary: "UIBackgroundModes contains a mode iOS does not know (often a misspelling).",
        appleBehaviour: "silently ignored: the mode grants nothing"
    )
    public static let backgroundTaskNeverEnded = DoctorRule(
        id: "BGD009",
        name: "background-task-never-ended",
        severity: .error,
        summary: "A beginBackgroundTask identifier is never passed to endBackgroundTask in the same type.",
        appleBehaviour:
            "\"Failure to end the task explicitly will result in the termination of the app\": the watchdog kills it "
            + "with exception code 0x8badf00d when the background time runs out"
    )
    public static let unresolvedIdentifier = DoctorRule(
        id: "BGD010",
        name: "unresolved-identifier",
        severity: .note,
        summary: "A task identifier expression cannot be resolved to a string, so the doctor cannot check it.",
        appleBehaviour: "nothing the doctor can tell: the identifier is only known at run time"
    )
    public static let duplicateRegistration = DoctorRule(
        id: "BGD011",
        name: "duplicate-registration",
        severity: .error,
        summary: "The same task identifier is registered at more than one place.",
        appleBehaviour:
            "the second registration crashes the app with NSInternalInconsistencyException "
            + "\"Launch handler for task with identifier <id> has already been registered\""
    )
    public static let wildcardForm = DoctorRule(
        id: "BGD012",
        name: "wildcard-form",
        severity: .warning,
        summary: "A wildcard permitted identifier does not have Apple's form <bundle identifier>.<context>.*.",
        appleBehaviour:
            "Apple documents wildcard entries only as <bundleID>.<context>.* (BGTaskRequest.h, iOS 26); another form "
            + "is undocumented, and an identifier no entry permits is refused with BGTaskScheduler.Error.notPermitted "
            + "(code 3)"
    )
    public static let cancelUnknownIdentifier = DoctorRule(
        id: "BGD013",
        name: "cancel-unknown-identifier",
        severity: .note,
        summary: "cancel(taskRequestWithIdentifier:) names an identifier the app never submits.",
        appleBehaviour: "nothing: cancelling an identifier with no pending request is silently a no-op"
    )
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
