import BackgroundCore
import Testing

/// A run-time budget read back from a store is input (issue 25): one computed "later than now"
/// (the store written while the wall clock was ahead, then set back) made the search for the
/// time it refills step a millisecond at a time up to that moment — a stall of the daemon at
/// every decision, found by the stored-rows fuzz target. Each test here hung before the fix.
@Suite("A stored run-time budget never stalls the scheduler")
struct StoredBudgetTests {
    static let capacity: Duration = .seconds(600)

    @Test("A budget computed three years ahead refills from then, found at once")
    func computedAhead() {
        let ahead = Instant.t(3 * 365 * 86_400)
        let budget = RuntimeBudget(available: .zero, updatedAt: ahead)
        let again = budget.availableAgain(.seconds(30), after: .t(5), capacity: Self.capacity)
        // 30 s of a 600 s daily budget refill in 4,320 s, from the moment it was computed.
        #expect(abs((again - (ahead + .seconds(4_320))).seconds) < 0.001)
    }

    @Test("More than the capacity never comes; a budget far below zero never refills")
    func never() {
        let budget = RuntimeBudget(available: .zero, updatedAt: .t(0))
        #expect(budget.availableAgain(.seconds(601), after: .t(5), capacity: Self.capacity) == .distantFuture)
        let deep = RuntimeBudget(available: .seconds(-1e15), updatedAt: .t(0))
        #expect(deep.availableAgain(.seconds(30), after: .t(5), capacity: Self.capacity) == .distantFuture)
    }

    @Test("Restored with a time ahead, the budget counts as computed at the restore")
    func restoredAhead() throws {
        var d = Driver()
        let state = PersistedAppState(
            forceQuit: false,
            refreshSwitch: true,
            runtimeBudget: RuntimeBudget(available: .zero, updatedAt: .t(100_000_000)),
            lastBackgroundRunAt: nil,
            fetchInterval: nil,
            lastFetchAt: nil
        )
        try d.send(
            .restore(
                PersistedApp(
                    app: notes,
                    manifest: .scheduling(notes),
                    pendingRequests: [.refresh(notes.refreshID)],
                    state: state
                )
            ),
            at: .t(5)
        )
        let why = try #require(d.why(notes, notes.refreshID, at: .t(5)))
        let budget = why.unmet.compactMap { condition -> Instant? in
            if case .budgetExhausted(let until) = condition { return until }
            return nil
        }
        #expect(budget.count == 1)
        #expect(abs(((budget.first ?? .zero) - .t(5 + 4_320)).seconds) < 0.001, "refilled from the restore")
    }
}
