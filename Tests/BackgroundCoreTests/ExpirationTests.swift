import BackgroundCore
import Testing

@Suite("Expiration")
struct ExpirationTests {
    private static func expiring(_ count: Int) -> Effect {
        .log(
            LogRecord(
                .notice,
                app: notes,
                "background time expiring (5.000 s left): calling \(count) expiration handler(s)"
            )
        )
    }

    @Test("At budget end − 5 s the handlers are called one at a time in begin order, skipping assertions without one")
    func handlersInBeginOrder() throws {
        var d = try Driver.inBackground(handlers: [true, false, true])
        #expect(try d.tick(at: .t(34, 999)) == [])
        #expect(
            try d.tick(at: .t(35)) == [
                Self.expiring(2), .runExpirationHandler(notes, .id(1)), .scheduleWakeup(at: .t(36)),
            ]
        )
        #expect(
            try d.handlerReturned(notes, 1, at: .t(35, 200)) == [
                .runExpirationHandler(notes, .id(3)), .scheduleWakeup(at: .t(36, 200)),
            ]
        )
        #expect(try d.handlerReturned(notes, 3, at: .t(35, 400)) == [.scheduleWakeup(at: .t(40))])
        #expect(d.heldIDs(notes) == [1, 2, 3])
    }

    @Test("The next handler is not called until the previous one has returned")
    func oneAtATime() throws {
        var d = try Driver.inBackground(handlers: [true, true])
        try d.tick(at: .t(35))
        #expect(try d.tick(at: .t(35, 900)) == [])
        #expect(d.timeline.filter { if case .runExpirationHandler = $0.effect { true } else { false } }.count == 1)
        #expect(try d.handlerReturned(notes, 1, at: .t(35, 950)).first == .runExpirationHandler(notes, .id(2)))
    }

    @Test("An assertion ended while the handlers run is skipped")
    func endedAssertionSkipped() throws {
        var d = try Driver.inBackground(handlers: [true, true, true])
        try d.tick(at: .t(35))
        #expect(try d.end(notes, 2, at: .t(35, 100)) == [])
        #expect(
            try d.handlerReturned(notes, 1, at: .t(35, 200)) == [
                .runExpirationHandler(notes, .id(3)), .scheduleWakeup(at: .t(36, 200)),
            ]
        )
    }

    @Test("A handler that ends the last assertion: the app is suspended only after the handler returns")
    func suspendAfterHandlerReturns() throws {
        var d = try Driver.inBackground(handlers: [true])
        try d.tick(at: .t(35))
        #expect(try d.end(notes, 1, at: .t(35, 100)) == [])
        #expect(d.state(notes) == .background)
        let effects = try d.handlerReturned(notes, 1, at: .t(35, 200))
        #expect(effects == [.stateChanged(notes, from: .background, to: .suspended), .suspend(notes), .cancelWakeup])
    }

    @Test("Handlers that end their assertions one by one: the app is suspended after the last one returns")
    func everyHandlerEnds() throws {
        var d = try Driver.inBackground(handlers: [true, true])
        try d.tick(at: .t(35))
        try d.end(notes, 1, at: .t(35, 100))
        #expect(try d.handlerReturned(notes, 1, at: .t(35, 200)).first == .runExpirationHandler(notes, .id(2)))
        try d.end(notes, 2, at: .t(35, 300))
        #expect(
            try d.handlerReturned(notes, 2, at: .t(35, 400)).withoutLogs == [
                .stateChanged(notes, from: .background, to: .suspended), .suspend(notes), .cancelWakeup,
            ]
        )
    }

    @Test("A begin in the background after expiration started is denied and no identifier is issued")
    func deniedAfterExpiration() throws {
        var d = try Driver.inBackground(handlers: [false])
        #expect(try d.tick(at: .t(35)) == [Self.expiring(0), .scheduleWakeup(at: .t(40))])
        let effects = try d.begin(notes, "Late", at: .t(36))
        #expect(effects.withoutLogs == [.assertionDenied(notes, name: "Late", reason: "no background time remaining")])
        #expect(effects.logs.map(\.level) == [.warning])
        #expect(d.heldIDs(notes) == [1])
        try d.end(notes, 1, at: .t(37))
        try d.send(.enterForeground(notes), at: .t(50))
        #expect(try d.begin(notes, at: .t(51)) == .granted(.id(2)))
    }

    @Test("A begin in the background with exactly the 5 s lead left is denied")
    func deniedAtLead() throws {
        var d = try Driver.inBackground(handlers: [false])
        let effects = try d.begin(notes, "Late", at: .t(35))
        #expect(
            effects.withoutLogs == [
                .assertionDenied(notes, name: "Late", reason: "no background time remaining"),
                .scheduleWakeup(at: .t(40)),
            ]
        )
        #expect(d.heldIDs(notes) == [1])
    }

    @Test("A begin in the background with more than the lead left is granted")
    func grantedBeforeLead() throws {
        var d = try Driver.inBackground(handlers: [false])
        #expect(try d.begin(notes, at: .t(34, 999)) == .granted(.id(2)))
        #expect(d.system.nextDeadline == .t(35))
    }

    @Test("A policy that grants no assertions denies every begin, in the foreground and in the background")
    func policyWithoutAssertions() throws {
        var policy = SystemPolicy.iOS
        policy.grantsAssertions = false
        var d = Driver(policy: policy)
        try d.open(notes, at: .zero)
        let reason = "background execution is not available on this system"
        #expect(try d.begin(notes, at: .t(1)).withoutLogs == [.assertionDenied(notes, name: "Upload", reason: reason)])
        try d.leave(notes, at: .t(2))
        #expect(try d.begin(notes, at: .t(3)).withoutLogs == [.assertionDenied(notes, name: "Upload", reason: reason)])
        #expect(d.heldIDs(notes) == [])
    }

    @Test("A begin from an app that is not running is denied")
    func deniedWhenNotRunning() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.background(notes, at: .t(1))
        let effects = try d.begin(notes, at: .t(2))
        #expect(effects.withoutLogs.count == 1)
        #expect(effects.first.map { if case .assertionDenied(notes, "Upload", _) = $0 { true } else { false } } == true)
    }

    @Test("Entering the foreground during an expiration stops it; handlers not yet called run at the next expiration")
    func foregroundStopsExpiration() throws {
        var d = try Driver.inBackground(handlers: [true, true, true])
        try d.tick(at: .t(35))
        #expect(
            try d.send(.enterForeground(notes), at: .t(35, 500)) == [
                .stateChanged(notes, from: .background, to: .inactive), .cancelWakeup,
            ]
        )
        #expect(try d.handlerReturned(notes, 1, at: .t(35, 600)).withoutLogs == [])
        #expect(try d.tick(at: .t(45)) == [])
        try d.send(.enterBackground(notes), at: .t(50))
        #expect(try d.send(.didEnterBackgroundReturned(notes), at: .t(50)) == [.scheduleWakeup(at: .t(75))])
        #expect(
            try d.tick(at: .t(75)) == [
                Self.expiring(2), .runExpirationHandler(notes, .id(2)), .scheduleWakeup(at: .t(76)),
            ]
        )
        #expect(
            try d.handlerReturned(notes, 2, at: .t(75, 100)) == [
                .runExpirationHandler(notes, .id(3)), .scheduleWakeup(at: .t(76, 100)),
            ]
        )
        #expect(try d.handlerReturned(notes, 3, at: .t(75, 200)) == [.scheduleWakeup(at: .t(80))])
    }
}
