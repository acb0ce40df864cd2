import BackgroundCore
import Testing

@Suite(
    "TransferEventWakes: an app woken for its sessions' events, held until its completion handlers, in Apple's order"
)
struct TransferEventWakesTests {
    static let reader = AppID("com.example.reader")
    static let mail = AppID("com.example.mail")
    static let limit = Duration.seconds(15)

    static func at(_ seconds: Int64) -> Instant { .zero + .seconds(seconds) }

    /// Every app in `state`.
    static func all(_ state: AppLifecycleState) -> (AppID) -> AppLifecycleState { { _ in state } }

    @Test("A suspended app is resumed at its relaunch time, not before, for every waiting session in name order")
    func resumedAtItsRelaunchTime() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "uploads", relaunchAt: Self.at(60))
        wakes.eventsWaiting(Self.reader, session: "downloads", relaunchAt: Self.at(90))
        #expect(wakes.nextDeadline == Self.at(60), "the first session's relaunch time; the second joins it")
        #expect(wakes.tick(at: Self.at(59), states: Self.all(.suspended)) == [])
        #expect(
            wakes.tick(at: Self.at(60), states: Self.all(.suspended)) == [
                .wake(Self.reader, sessions: ["downloads", "uploads"], launching: false)
            ]
        )
        #expect(wakes.isAwake(Self.reader))
        #expect(wakes.isWokenFor(Self.reader, session: "uploads"))
        #expect(wakes.nextDeadline == Self.at(60) + Self.limit, "the wake's time limit")
    }

    @Test("An app with no process is launched; a terminated one too")
    func launchedWithoutAProcess() {
        for state: AppLifecycleState in [.notRunning, .terminated(.systemReclaimed)] {
            var wakes = TransferEventWakes(timeLimit: Self.limit)
            wakes.eventsWaiting(Self.reader, session: "s", relaunchAt: Self.at(1))
            #expect(
                wakes.tick(at: Self.at(1), states: Self.all(state)) == [
                    .wake(Self.reader, sessions: ["s"], launching: true)
                ]
            )
        }
    }

    @Test("handleEvents follows the launch callbacks; the wake ends once, after the last completion handler")
    func heldUntilTheLastHandler() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "a", relaunchAt: Self.at(0))
        wakes.eventsWaiting(Self.reader, session: "b", relaunchAt: Self.at(0))
        _ = wakes.tick(at: Self.at(0), states: Self.all(.notRunning))
        #expect(
            wakes.launchCallbacksReturned(Self.reader) == [
                .handleEvents(Self.reader, session: "a"), .handleEvents(Self.reader, session: "b"),
            ]
        )
        #expect(wakes.launchCallbacksReturned(Self.reader) == [], "asked once")
        wakes.eventsHeard(Self.reader, session: "a")
        wakes.eventsHeard(Self.reader, session: "b")
        #expect(wakes.handlerCalled(Self.reader, session: "b") == [])
        #expect(wakes.isAwake(Self.reader))
        #expect(wakes.handlerCalled(Self.reader, session: "a") == [.endWake(Self.reader, timedOut: false)])
        #expect(wakes.handlerCalled(Self.reader, session: "a") == [], "a second call of a handler ends nothing")
        #expect(!wakes.isAwake(Self.reader))
        #expect(wakes.nextDeadline == nil)
    }

    @Test("An app that never calls its completion handler is released when its time runs out")
    func timeLimit() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "s", relaunchAt: Self.at(10))
        _ = wakes.tick(at: Self.at(10), states: Self.all(.suspended))
        _ = wakes.launchCallbacksReturned(Self.reader)
        #expect(wakes.tick(at: Self.at(24), states: Self.all(.background)) == [])
        #expect(wakes.tick(at: Self.at(25), states: Self.all(.background)) == [.endWake(Self.reader, timedOut: true)])
        #expect(wakes.handlerCalled(Self.reader, session: "s") == [], "too late: the wake ended")
    }

    @Test("After a force quit nothing wakes the app")
    func forceQuitNeverWakes() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "s", relaunchAt: nil)
        #expect(wakes.nextDeadline == nil)
        #expect(wakes.tick(at: Self.at(86_400), states: Self.all(.terminated(.userForceQuit))) == [])
        #expect(wakes.waitingSessions(of: Self.reader) == ["s"])
        wakes.forceQuit(Self.reader)
        #expect(wakes.waitingSessions(of: Self.reader) == [])
    }

    @Test(
        "A running background app is asked at once and held by what runs it; a foreground app hears the events itself"
    )
    func runningApps() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "s", relaunchAt: Self.at(0))
        #expect(wakes.tick(at: Self.at(0), states: Self.all(.background)) == [.handleEvents(Self.reader, session: "s")])
        #expect(!wakes.isAwake(Self.reader))
        #expect(wakes.handlerCalled(Self.reader, session: "s") == [], "no wake of the system's to end")

        var foreground = TransferEventWakes(timeLimit: Self.limit)
        foreground.eventsWaiting(Self.mail, session: "s", relaunchAt: Self.at(0))
        #expect(foreground.tick(at: Self.at(0), states: Self.all(.active)) == [])
        foreground.eventsHeard(Self.mail, session: "s")
        #expect(foreground.waitingSessions(of: Self.mail) == [])
        #expect(foreground.nextDeadline == nil)
    }

    @Test("A process that ends during its wake is woken again at its next relaunch time for what it did not hear")
    func processEndedDuringTheWake() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "s", relaunchAt: Self.at(0))
        _ = wakes.tick(at: Self.at(0), states: Self.all(.suspended))
        wakes.processEnded(Self.reader, relaunchAt: Self.at(120))
        #expect(!wakes.isAwake(Self.reader))
        #expect(wakes.nextDeadline == Self.at(120))
        #expect(
            wakes.tick(at: Self.at(120), states: Self.all(.notRunning)) == [
                .wake(Self.reader, sessions: ["s"], launching: true)
            ]
        )
    }

    @Test("Events of another session during a wake join it: no second wake")
    func noSecondWake() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "a", relaunchAt: Self.at(0))
        _ = wakes.tick(at: Self.at(0), states: Self.all(.suspended))
        wakes.eventsWaiting(Self.reader, session: "b", relaunchAt: Self.at(1))
        #expect(wakes.tick(at: Self.at(1), states: Self.all(.background)) == [])
        #expect(wakes.nextDeadline == Self.at(0) + Self.limit)
    }

    @Test("Apps due at the same instant are woken in app order, whatever the order they became due in")
    func appOrder() {
        var wakes = TransferEventWakes(timeLimit: Self.limit)
        wakes.eventsWaiting(Self.reader, session: "s", relaunchAt: Self.at(5))
        wakes.eventsWaiting(Self.mail, session: "s", relaunchAt: Self.at(5))
        #expect(
            wakes.tick(at: Self.at(5), states: Self.all(.suspended)) == [
                .wake(Self.mail, sessions: ["s"], launching: false),
                .wake(Self.reader, sessions: ["s"], launching: false),
            ]
        )
    }
}
