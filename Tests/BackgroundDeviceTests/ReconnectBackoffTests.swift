import Testing

@testable import BackgroundDevice

@Suite("When the D-Bus watcher tries the bus again")
struct ReconnectBackoffTests {
    @Test("Connected: no timer; lost: the first wait, then doubling up to the most; connected again resets")
    func schedule() {
        var backoff = ReconnectBackoff(first: 500, most: 4000)
        #expect(backoff.timeout(at: 0) == -1)
        #expect(!backoff.isDue(at: 1_000_000))
        backoff.lost(at: 10_000)
        #expect(backoff.timeout(at: 10_000) == 500)
        #expect(!backoff.isDue(at: 10_499))
        #expect(backoff.isDue(at: 10_500))
        var now: Int64 = 10_500
        var waits: [Int32] = []
        for _ in 0..<6 {
            backoff.failed(at: now)
            waits.append(backoff.timeout(at: now))
            now += Int64(waits.last!)
        }
        #expect(waits == [1000, 2000, 4000, 4000, 4000, 4000])
        #expect(backoff.attempts == 6)
        #expect(backoff.timeout(at: now + 10_000) == 0)  // overdue: try at once
        backoff.connected()
        #expect(backoff.timeout(at: now) == -1)
        backoff.lost(at: now)
        #expect(backoff.timeout(at: now) == 500)  // a new loss starts from the first wait
    }

    @Test("Bounds: the first wait is at least 1 ms and the most at least the first")
    func bounds() {
        let backoff = ReconnectBackoff(first: 0, most: -5)
        #expect(backoff.first == 1 && backoff.most == 1)
    }
}
