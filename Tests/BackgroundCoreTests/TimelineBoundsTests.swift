import BackgroundCore
import Testing

/// Issue 25, finding 2: numbers from another process reached `Instant`'s arithmetic and its
/// rendering in seconds, and trapped. No instant lies past ``Instant/distantFuture`` (or before
/// ``Instant/distantPast``): building and moving one saturates there.
@Suite("The timeline's bounds: instants saturate, never trap")
struct TimelineBoundsTests {
    static let huge = Duration(attoseconds: Int128.max)
    static let hugeNegative = Duration(attoseconds: Int128.min)

    @Test("adding or subtracting any duration saturates at distantFuture and distantPast")
    func arithmeticSaturates() {
        #expect(Instant.zero + Self.huge == .distantFuture)
        #expect(Instant.zero - Self.huge == .distantPast)
        #expect(Instant.zero + Self.hugeNegative == .distantPast)
        #expect(Instant.zero - Self.hugeNegative == .distantFuture)
        #expect(Instant.distantFuture + .seconds(1) == .distantFuture, "never plus anything stays never")
        #expect(Instant.distantPast - .seconds(1) == .distantPast)
        #expect(Instant.distantFuture - .seconds(1) < .distantFuture, "inside the bounds, exact")
        #expect(Instant.seconds(10) + .seconds(5) == .seconds(15))
        #expect(Instant.seconds(10) - Duration.milliseconds(500) == .seconds(9.5))
        #expect((Instant.distantFuture - Instant.distantPast).seconds > 0, "the widest difference renders")
    }

    @Test("an instant built past the bounds is clamped, and renders in seconds")
    func constructionSaturates() {
        #expect(Instant(offset: Self.huge) == .distantFuture)
        #expect(Instant(offset: Self.hugeNegative) == .distantPast)
        #expect(Instant(offset: Self.huge).seconds == Instant.distantFuture.seconds)
        #expect(Instant(offset: Self.huge).description.hasPrefix("T+2305843009213693951."))
        #expect(Instant.isOnTimeline(Instant.distantFuture.offset))
        #expect(!Instant.isOnTimeline(Instant.distantFuture.offset + .nanoseconds(1)))
        #expect(!Instant.isOnTimeline(Self.hugeNegative))
    }

    @Test("a fetch interval of Duration's largest value queues the fetch for never, without trapping")
    func largestFetchInterval() throws {
        var d = try FetchTests.opened(FetchTests.legacy)
        try d.send(.setMinimumBackgroundFetchInterval(notes, Self.huge), at: .t(1))
        #expect(d.why(notes, FetchTests.fetchID, at: .t(1))?.earliestRun == .distantFuture)
        try d.background(notes, at: .t(2))
        #expect(try d.tick(at: .t(86_400)).taskRuns.isEmpty)
    }

    @Test("a request submitted 'at' the end of time and due before the start of it is handled")
    func extremeRequestInstants() throws {
        var d = try SchedulerSubmissionTests.opened()
        let request = TaskRequest(
            identifier: notes.refreshID,
            kind: .appRefresh,
            earliestBegin: Instant(offset: Self.hugeNegative),
            submittedAt: Instant(offset: Self.huge)
        )
        let answer = try d.submit(notes, request, at: .t(1))
        // Accepted, stamped with the time the system received it, and due at once.
        guard case .accepted(let accepted)? = answer.reply else {
            Issue.record("not accepted: \(answer)")
            return
        }
        #expect(accepted.submittedAt == .t(1))
        #expect(answer.effects.taskRuns.map(\.request.identifier) == [notes.refreshID])
        try d.background(notes, at: .t(2))
        _ = try d.tick(at: .t(86_400))
    }
}
