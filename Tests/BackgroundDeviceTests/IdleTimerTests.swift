import Testing

@testable import BackgroundDevice

@Suite("Idle from input times")
struct IdleTimerTests {
    let second: Int64 = 1_000_000_000

    @Test("Idle after the wait without input, active again at the next event")
    func transitions() {
        var timer = IdleTimer(idleAfter: .seconds(60), start: 0)
        #expect(!timer.isIdle)
        #expect(timer.timeoutMilliseconds(at: 0) == 60_000)
        var changes: [Bool] = []
        changes.append(timer.check(at: 59 * second))
        changes.append(timer.activity(at: 30 * second))
        #expect(timer.timeoutMilliseconds(at: 59 * second) == 31_000)
        changes.append(timer.check(at: 89 * second))
        changes.append(timer.check(at: 90 * second))
        #expect(timer.isIdle)
        #expect(timer.timeoutMilliseconds(at: 100 * second) == -1)
        changes.append(timer.check(at: 200 * second))
        changes.append(timer.activity(at: 300 * second))
        #expect(!timer.isIdle)
        #expect(timer.timeoutMilliseconds(at: 300 * second + 1) == 60_000)
        #expect(changes == [false, false, false, true, false, true])
    }

    @Test("An overdue check waits zero; a late activity never moves time back")
    func edges() {
        var timer = IdleTimer(idleAfter: .milliseconds(1500), start: 10 * second)
        #expect(timer.timeoutMilliseconds(at: 20 * second) == 0)
        let changed = timer.activity(at: 5 * second)
        #expect(!changed)
        #expect(timer.lastActivity == 10 * second)
    }
}
