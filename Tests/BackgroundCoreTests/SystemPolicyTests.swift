import BackgroundCore
import Testing

@Suite("System policy")
struct SystemPolicyTests {
    @Test("iOS: 30 s budget, 5 s lead, 1 s per handler, 3 s for all, 1000 assertions, 5 s for the delegate")
    func iOSNumbers() {
        let policy = SystemPolicy.iOS
        #expect(policy.name == "iOS")
        #expect(policy.backgroundTimeBudget == .seconds(30))
        #expect(policy.expirationLeadTime == .seconds(5))
        #expect(policy.expirationHandlerTimeLimit == .seconds(1))
        #expect(policy.expirationHandlersTotalTimeLimit == .seconds(3))
        #expect(policy.maximumOutstandingAssertions == 1000)
        #expect(policy.didEnterBackgroundTimeLimit == .seconds(5))
        #expect(policy.grantsAssertions)
        #expect(policy.idleBackgroundAction == .suspend)
    }

    @Test("server(grace: 10 s): a 10 s budget, a 2.5 s lead, and exit(0) when idle; the rest as iOS")
    func serverNumbers() {
        let policy = SystemPolicy.server(grace: .seconds(10))
        #expect(policy.name == "server(grace: 10.000s)")
        #expect(policy.backgroundTimeBudget == .seconds(10))
        #expect(policy.expirationLeadTime == .milliseconds(2500))
        #expect(policy.idleBackgroundAction == .exit(status: 0))
        #expect(policy.expirationHandlerTimeLimit == .seconds(1))
        #expect(policy.maximumOutstandingAssertions == 1000)
        #expect(policy.didEnterBackgroundTimeLimit == .seconds(5))
    }

    @Test("server(grace:) caps the lead at 5 s for long graces")
    func serverLeadCap() {
        #expect(SystemPolicy.server(grace: .seconds(60)).expirationLeadTime == .seconds(5))
        #expect(SystemPolicy.server(grace: .seconds(20)).expirationLeadTime == .seconds(5))
    }

    @Test("iOS 7-12: a 180 s budget, everything else as iOS")
    func iOS12Numbers() {
        var policy = SystemPolicy.iOS12
        #expect(policy.backgroundTimeBudget == .seconds(180))
        policy.backgroundTimeBudget = .seconds(30)
        policy.name = "iOS"
        #expect(policy == .iOS)
    }

    @Test("Under iOS 7-12 the expiration falls 175 s after entering the background")
    func iOS12Expiration() throws {
        var d = Driver(policy: .iOS12)
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        #expect(try d.background(notes, at: .t(10)) == [.scheduleWakeup(at: .t(185))])
        #expect(d.remaining(notes, at: .t(10)) == .seconds(180))
    }

    @Test("Under server(grace: 10 s) the expiration falls 7.5 s after entering the background")
    func serverExpiration() throws {
        var d = Driver(policy: .server(grace: .seconds(10)))
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        #expect(try d.background(notes, at: .t(10)) == [.scheduleWakeup(at: .t(17, 500))])
    }

    @Test(
        "Every policy gives its handlers' total time limit within the lead, so handlers finish before the budget ends",
        arguments: [SystemPolicy.iOS, .iOS12, .server(grace: .seconds(10)), .server(grace: .seconds(30))]
    )
    func handlersFitInLead(policy: SystemPolicy) {
        #expect(policy.expirationHandlersTotalTimeLimit <= policy.expirationLeadTime)
    }

    @Test("A system reports the policy it was created with, iOS by default")
    func systemKeepsPolicy() {
        #expect(BackgroundSystem().policy == .iOS)
        #expect(BackgroundSystem(policy: .iOS12).policy.name == "iOS 7-12")
    }
}
