import BackgroundCore
import BackgroundProtocol

/// The budget lane of `bgctl daemon timeline`: the journal gets a reading of an app's
/// background time whenever it changes course, as the simulator samples it: when the app
/// enters the background, when it starts or stops going down (an assertion begun or ended, the
/// budget's end), and where it stood when the app left the background. Between readings the
/// timeline draws a ramp (going down) or a flat line, so one reading per change is enough.
extension DaemonEngine {
    /// Where an app's background time stood at its last reading.
    struct BudgetCourse: Equatable {
        var remaining: Duration
        var depleting: Bool
        var at: Instant

        /// Whether `later` is where this course leads (no change of course in between).
        func leads(to later: BudgetCourse) -> Bool {
            guard later.depleting == depleting else { return false }
            let expected = depleting ? remaining - (later.at - at) : remaining
            let gap = expected > later.remaining ? expected - later.remaining : later.remaining - expected
            return gap < .milliseconds(1)
        }
    }

    /// Records the readings the batch's effects call for (see the extension's discussion).
    func recordBudgets(after effects: [Effect], in state: inout State, at now: Instant) {
        guard let journal else { return }
        let limit = configuration.policy.backgroundTimeBudget.seconds
        let time = wallClock.unixSeconds(of: now)
        func record(_ app: AppID, _ remaining: Duration, _ depleting: Bool) {
            let reading = JournalEntry.BudgetReading(
                app: app,
                remainingSeconds: remaining.seconds,
                limitSeconds: limit,
                depleting: depleting
            )
            journal.record(budget: reading, at: time)
        }
        for case .stateChanged(let app, let from, let to) in effects {
            if to == .background { state.inBackground.insert(app) } else { state.inBackground.remove(app) }
            if from == .background && to != .background {
                // Where it stood when it left, as the simulator draws it: the time left in the
                // foreground, none once suspended or ended.
                record(app, state.core.backgroundTimeRemaining(of: app, at: now) ?? .zero, false)
                state.budgetCourses[app] = nil
            }
        }
        for app in state.inBackground.sorted() {
            let grant = state.core.grantState(of: app, at: now)
            let course = BudgetCourse(remaining: grant.budgetRemaining, depleting: grant.budgetTicking, at: now)
            if let last = state.budgetCourses[app], last.leads(to: course) { continue }
            state.budgetCourses[app] = course
            record(app, course.remaining, course.depleting)
        }
    }
}
