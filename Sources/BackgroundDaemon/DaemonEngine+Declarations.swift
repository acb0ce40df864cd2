import BackgroundCore
import BackgroundProtocol

extension DaemonEngine {
    /// Takes over an app's process that declares what it holds (its hello's
    /// ``AppDeclaration``): the daemon restarted under it, so the core has no record of it.
    ///
    /// The process is launched in the core in the state it declares, its launch handlers are
    /// registered, its assertions are recorded under the identifiers its code holds (a gap in
    /// the identifiers is allowed; the budget is a fresh one), and its launch is finished if it
    /// was. The callbacks the launch would ask of the app (`didFinishLaunching`, the background
    /// wake) ran in this process long ago, so the daemon answers them itself: the app is never
    /// ended for a gap its restart caused. The caller holds the app in `connecting` (its
    /// `.launch` is this process, not a spawn) and collects the effects in `awaitingConnection`.
    func takeOver(_ app: AppID, declaring declaration: AppDeclaration) {
        let background = !declaration.lifecycleState.isForeground
        deliver(.launch(app, background ? .background : .foreground))
        if declaration.lifecycleState == .active { deliver(.activate(app)) }
        for identifier in declaration.registeredIdentifiers.sorted() {
            deliver(.registerTaskHandler(app, identifier: identifier))
        }
        for held in declaration.assertions.sorted(by: { $0.id < $1.id }) {
            deliver(
                .assertionBegun(
                    app,
                    held.id,
                    name: held.name,
                    origin: held.origin,
                    hasExpirationHandler: held.hasExpirationHandler
                )
            )
        }
        if declaration.launchFinished { deliver(.finishLaunching(app)) }
        if background { deliver(.backgroundWakeReturned(app)) }
        logger.notice(
            "\(app): its process connected again and was taken over (\(declaration.lifecycleState), \(declaration.assertions.count) assertion(s), \(declaration.registeredIdentifiers.count) launch handler(s))"
        )
    }

    /// The answer to an app's question about its own requests.
    func answer(_ query: AppQuery, for app: AppID) -> AppQueryAnswer {
        let now = clock()
        return state.withLock { state in
            switch query {
            case .pendingTaskRequests:
                return .pendingTaskRequests(state.core.pendingRequests(of: app))
            case .eligibility(let identifier):
                return .eligibility(state.core.eligibility(of: app, identifier: identifier, at: now))
            case .explanation(let identifier):
                return .explanation(state.core.explanation(of: app, identifier: identifier, at: now))
            }
        }
    }
}

extension Effect {
    /// Whether the effect describes the start of a process that is already running when the
    /// daemon takes it over (its launch, its state change, its launch callbacks): the welcome
    /// says all of it.
    var describesTheLaunch: Bool {
        switch self {
        case .launch, .stateChanged, .deliverBackgroundWake, .resume: return true
        default: return false
        }
    }
}
