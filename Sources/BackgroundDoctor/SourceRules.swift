import BackgroundCore

/// The rules that read the sources: registration, submission, permission, background tasks.
struct SourceRules {
    var facts: SourceFacts
    var uses: [Examination.Use]
    var manifest: AppManifest?
    var manifestPath: String?

    /// Functions in which registering is what Apple asks for.
    static let launchFunctions: Set<String> = [
        "application(_:didFinishLaunchingWithOptions:)", "application(_:willFinishLaunchingWithOptions:)", "init()",
    ]

    private var registrations: [Examination.Use] { uses.filter { $0.use.role == .register } }
    private var requests: [Examination.Use] {
        uses.filter { if case .request = $0.use.role { true } else { false } }
    }

    private func kind(of use: Examination.Use) -> RequestKind? {
        if case .request(let kind) = use.use.role { return kind }
        return nil
    }

    /// Identifiers used with `BGContinuedProcessingTaskRequest`: exempt from registering at launch.
    private var continuedIdentifiers: Set<String> {
        Set(requests.filter { kind(of: $0) == .continuedProcessing }.map(\.identifier))
    }

    // MARK: Registration

    func registrationFindings(unresolvedRegistrations: Int) -> [Finding] {
        var findings: [Finding] = []
        var seen: [String: SourcePosition] = [:]
        for registration in registrations {
            if let first = seen[registration.identifier] {
                findings.append(
                    Finding(
                        .duplicateRegistration,
                        "'\(registration.identifier)' is registered again (first at \(first.text))",
                        fix: "register each identifier once, in application(_:didFinishLaunchingWithOptions:)",
                        at: registration.use.position,
                        identifier: registration.identifier
                    )
                )
            } else {
                seen[registration.identifier] = registration.use.position
            }
            if let late = lateRegistration(registration) { findings.append(late) }
        }
        guard unresolvedRegistrations == 0 else { return findings }
        let registered = Set(registrations.map(\.identifier))
        for request in requests where !registered.contains(request.identifier) {
            findings.append(submittedNotRegistered(request, registered: registered))
        }
        let submitted = Set(requests.map(\.identifier))
        for cancel in uses where cancel.use.role == .cancel && !submitted.contains(cancel.identifier) {
            findings.append(
                Finding(
                    .cancelUnknownIdentifier,
                    "cancel(taskRequestWithIdentifier:) names '\(cancel.identifier)', which no request in the sources uses",
                    fix: "cancel the identifier the request was created with",
                    at: cancel.use.position
                )
            )
        }
        return findings
    }

    private func submittedNotRegistered(_ request: Examination.Use, registered: Set<String>) -> Finding {
        let patterns = registered.filter {
            AppManifest(bundleIdentifier: "x", permittedTaskIdentifiers: [$0]).permits(
                taskIdentifier: request.identifier
            )
        }
        let pattern = patterns.sorted().first.map {
            "; a handler is registered for the pattern '\($0)', but iOS needs the concrete identifier registered "
                + "(Apple's article registers the concrete taskIdentifier)"
        }
        return Finding(
            .submittedNotRegistered,
            "a \(kind(of: request)?.rawValue ?? "request") for '\(request.identifier)' is created, but no launch handler "
                + "is registered for it" + (pattern ?? ""),
            fix:
                "call BGTaskScheduler.shared.register(forTaskWithIdentifier: \"\(request.identifier)\", using: nil) { … } "
                + "in application(_:didFinishLaunchingWithOptions:)",
            at: request.use.position,
            identifier: request.identifier
        )
    }

    /// A registration that certainly runs after launch, directly or through the functions calling it.
    private func lateRegistration(_ registration: Examination.Use) -> Finding? {
        if continuedIdentifiers.contains(registration.identifier) { return nil }
        let reason: String
        if let deferral = registration.use.context.deferral {
            reason = "runs \(deferral)"
        } else {
            var visited: Set<String> = []
            guard let (deferral, call) = deferredCaller(of: registration.use.context.function, visited: &visited) else {
                return nil
            }
            let function = registration.use.context.function ?? "its function"
            reason = "is in \(function), which is called at \(call.text) \(deferral)"
        }
        return Finding(
            .registrationAfterLaunch,
            "register(forTaskWithIdentifier: '\(registration.identifier)') \(reason)",
            fix: "register synchronously in application(_:didFinishLaunchingWithOptions:) (or the App's init), "
                + "before any await",
            at: registration.use.position
        )
    }

    /// The first call site, following callers upwards, that certainly runs after launch.
    private func deferredCaller(of function: String?, visited: inout Set<String>) -> (Deferral, SourcePosition)? {
        guard let function, !Self.launchFunctions.contains(function), visited.insert(function).inserted else {
            return nil
        }
        let base = String(function.prefix { $0 != "(" })
        for call in facts.functionCalls where call.callee == base {
            if let deferral = call.context.deferral { return (deferral, call.position) }
            if let found = deferredCaller(of: call.context.function, visited: &visited) { return found }
        }
        return nil
    }

    // MARK: Background tasks

    func backgroundTaskFindings() -> [Finding] {
        var findings: [Finding] = []
        for begin in facts.backgroundTaskBegins {
            let owner = begin.type.isEmpty ? "top-level code" : begin.type
            guard let variable = begin.variable else {
                findings.append(
                    Finding(
                        .backgroundTaskNeverEnded,
                        "the identifier beginBackgroundTask returns is discarded, so it can never be ended",
                        fix: "keep the identifier and call endBackgroundTask(_:) with it when the work ends and in "
                            + "the expiration handler",
                        at: begin.position
                    )
                )
                continue
            }
            let ended = facts.backgroundTaskEnds.contains { $0.type == begin.type && $0.variable == variable }
            guard !ended else { continue }
            findings.append(
                Finding(
                    .backgroundTaskNeverEnded,
                    "'\(variable)' holds a beginBackgroundTask identifier that is never passed to endBackgroundTask "
                        + "in \(owner)",
                    fix: "call UIApplication.shared.endBackgroundTask(\(variable)) when the work ends and in the "
                        + "expiration handler",
                    at: begin.position
                )
            )
        }
        return findings
    }
}
