import BackgroundCore
import Testing

@Suite("TransferQueue: when background transfers may run, why they wait, force quit, the relaunch delay")
struct TransferQueueTests {
    static let reader = AppID("com.example.reader")
    static let key = TransferKey(app: reader, session: "com.example.reader.downloads", task: 1)
    static let plugged = DeviceConditions(powerSource: .externalPower, network: .wifi)

    static func at(_ seconds: Int64) -> Instant { .zero + .seconds(seconds) }

    @Test("A transfer that needs nothing starts at once and is then running")
    func startsAtOnce() {
        var queue = TransferQueue()
        queue.submit(Self.key, TransferRequirements(), earliestBegin: nil, at: Self.at(1))
        #expect(queue.decide(at: Self.at(1)).start == [Self.key])
        #expect(queue.entry(Self.key)?.isRunning == true)
        #expect(queue.decide(at: Self.at(2)).start == [])
    }

    @Test("A discretionary transfer waits for external power and an unmetered network, and says so")
    func discretionaryWaits() throws {
        var queue = TransferQueue(device: DeviceConditions(powerSource: .battery, network: .cellular))
        queue.submit(Self.key, TransferRequirements(isDiscretionary: true), earliestBegin: nil, at: Self.at(1))
        #expect(queue.decide(at: Self.at(1)).start == [])
        let why = try #require(queue.eligibility(of: Self.key, at: Self.at(1)))
        #expect(why.unmet == [.requiresExternalPower, .requiresUnmeteredNetwork])
        #expect(why.request.kind == .transfer)
        #expect(why.request.identifier == "com.example.reader.downloads#1")
        #expect(why.request.requiresExternalPower)
        #expect(why.decidingFactor == .requiresExternalPower)
        queue.setDevice(DeviceConditions(powerSource: .externalPower, network: .cellular))
        #expect(queue.decide(at: Self.at(2)).start == [])
        queue.setDevice(Self.plugged, network: TransferNetwork(network: .wifi, isExpensive: true))
        #expect(queue.eligibility(of: Self.key, at: Self.at(3))?.unmet == [.requiresUnmeteredNetwork])
        queue.setDevice(Self.plugged)
        #expect(queue.decide(at: Self.at(4)).start == [Self.key])
    }

    @Test("A transfer created in the background is discretionary, as on iOS")
    func backgroundIsDiscretionary() {
        let requirements = TransferRequirements(createdInBackground: true)
        #expect(requirements.isDiscretionary)
        var queue = TransferQueue(device: DeviceConditions(powerSource: .battery, network: .wifi))
        queue.submit(Self.key, requirements, earliestBegin: nil, at: Self.at(1))
        #expect(queue.eligibility(of: Self.key, at: Self.at(1))?.unmet == [.requiresExternalPower])
    }

    @Test("Low Power Mode holds back discretionary transfers only")
    func lowPowerMode() {
        var queue = TransferQueue(
            device: DeviceConditions(powerSource: .externalPower, lowPowerMode: true, network: .wifi)
        )
        let other = TransferKey(app: Self.reader, session: "com.example.reader.downloads", task: 2)
        queue.submit(Self.key, TransferRequirements(isDiscretionary: true), earliestBegin: nil, at: Self.at(1))
        queue.submit(other, TransferRequirements(), earliestBegin: nil, at: Self.at(1))
        #expect(queue.eligibility(of: Self.key, at: Self.at(1))?.unmet == [.lowPowerMode])
        #expect(queue.decide(at: Self.at(1)).start == [other])
    }

    @Test("Cellular, expensive and constrained networks, each refused by its own setting")
    func networkRules() {
        var queue = TransferQueue(device: DeviceConditions(network: .cellular))
        func unmet(_ requirements: TransferRequirements) -> [UnmetCondition]? {
            queue.submit(Self.key, requirements, earliestBegin: nil, at: Self.at(1))
            return queue.eligibility(of: Self.key, at: Self.at(1))?.unmet
        }
        #expect(unmet(TransferRequirements(allowsCellularAccess: false)) == [.cellularNotAllowed])
        #expect(unmet(TransferRequirements(allowsExpensiveNetworkAccess: false)) == [.expensiveNetworkNotAllowed])
        #expect(unmet(TransferRequirements(allowsConstrainedNetworkAccess: false)) == [])
        queue.setDevice(DeviceConditions(network: .wifi), network: TransferNetwork(network: .wifi, isConstrained: true))
        #expect(unmet(TransferRequirements(allowsConstrainedNetworkAccess: false)) == [.constrainedNetworkNotAllowed])
        #expect(unmet(TransferRequirements(allowsCellularAccess: false)) == [])
        queue.setDevice(DeviceConditions(network: .none))
        #expect(unmet(TransferRequirements()) == [.requiresNetwork])
    }

    @Test("A running transfer pauses when its network goes, and starts again when it comes back")
    func pauseAndRestart() {
        var queue = TransferQueue(device: DeviceConditions(network: .wifi))
        queue.submit(Self.key, TransferRequirements(allowsCellularAccess: false), earliestBegin: nil, at: Self.at(1))
        #expect(queue.decide(at: Self.at(1)).start == [Self.key])
        queue.setDevice(DeviceConditions(network: .cellular))
        let paused = queue.decide(at: Self.at(2))
        #expect(paused.pause == [Self.key])
        #expect(queue.entry(Self.key)?.isRunning == false)
        #expect(queue.decide(at: Self.at(3)).pause == [])
        queue.setDevice(DeviceConditions(network: .wifi))
        #expect(queue.decide(at: Self.at(4)).start == [Self.key])
    }

    @Test("earliestBeginDate: waits until then, and the decision says when to ask again")
    func earliestBegin() throws {
        var queue = TransferQueue()
        queue.submit(Self.key, TransferRequirements(), earliestBegin: Self.at(600), at: Self.at(1))
        let first = queue.decide(at: Self.at(1))
        #expect(first.start == [])
        #expect(first.wakeAt == Self.at(600))
        let why = try #require(queue.eligibility(of: Self.key, at: Self.at(1)))
        #expect(why.unmet == [.notBefore(Self.at(600))])
        #expect(why.earliestRun == Self.at(600))
        #expect(queue.decide(at: Self.at(600)).start == [Self.key])
    }

    @Test("Priority orders the start: higher first, then the older, then by key")
    func priorityOrder() {
        var queue = TransferQueue()
        let session = "com.example.reader.downloads"
        let low = TransferKey(app: Self.reader, session: session, task: 1)
        let high = TransferKey(app: Self.reader, session: session, task: 2)
        let defaultOld = TransferKey(app: Self.reader, session: session, task: 3)
        let defaultNew = TransferKey(app: Self.reader, session: session, task: 4)
        queue.submit(defaultNew, TransferRequirements(), earliestBegin: nil, at: Self.at(5))
        queue.submit(low, TransferRequirements(priority: 0.1), earliestBegin: nil, at: Self.at(1))
        queue.submit(high, TransferRequirements(priority: 0.9), earliestBegin: nil, at: Self.at(3))
        queue.submit(defaultOld, TransferRequirements(), earliestBegin: nil, at: Self.at(2))
        #expect(queue.decide(at: Self.at(6)).start == [high, defaultOld, defaultNew, low])
        #expect(TransferRequirements(priority: 7).priority == 1)
        #expect(TransferRequirements(priority: .nan).priority == 0.5)
    }

    @Test("Force quit cancels every transfer of the app (and only its) and blocks relaunch until the user opens it")
    func forceQuit() {
        var queue = TransferQueue()
        let mail = TransferKey(app: "com.example.mail", session: "mail", task: 1)
        let second = TransferKey(app: Self.reader, session: "a.other", task: 9)
        queue.submit(Self.key, TransferRequirements(), earliestBegin: nil, at: Self.at(1))
        queue.submit(second, TransferRequirements(), earliestBegin: Self.at(900), at: Self.at(1))
        queue.submit(mail, TransferRequirements(), earliestBegin: nil, at: Self.at(1))
        _ = queue.decide(at: Self.at(1))
        #expect(queue.forceQuit(Self.reader) == [second, Self.key])
        #expect(queue.transfers.map(\.key) == [mail])
        #expect(queue.isForceQuit(Self.reader))
        #expect(queue.relaunchTime(of: Self.reader, readyAt: Self.at(2)) == nil)
        #expect(queue.relaunchTime(of: "com.example.mail", readyAt: Self.at(2)) == Self.at(2))
        queue.submit(Self.key, TransferRequirements(), earliestBegin: nil, at: Self.at(3))
        #expect(queue.eligibility(of: Self.key, at: Self.at(3))?.unmet == [.forceQuit])
        queue.opened(Self.reader)
        #expect(!queue.isForceQuit(Self.reader))
        #expect(queue.relaunchTime(of: Self.reader, readyAt: Self.at(4)) == Self.at(4))
        #expect(queue.decide(at: Self.at(4)).start == [Self.key])
    }

    @Test("The relaunch delay doubles from 60 s, resets after a quiet period and when the app is opened")
    func relaunchDelay() {
        var queue = TransferQueue()
        let app = Self.reader
        #expect(queue.relaunchTime(of: app, readyAt: Self.at(10)) == Self.at(10))
        queue.relaunched(app, at: Self.at(10))
        #expect(queue.relaunchDelayEnd(of: app) == Self.at(70))
        #expect(queue.relaunchTime(of: app, readyAt: Self.at(20)) == Self.at(70))
        queue.relaunched(app, at: Self.at(70))
        #expect(queue.relaunchDelayEnd(of: app) == Self.at(190))
        queue.relaunched(app, at: Self.at(190))
        #expect(queue.relaunchDelayEnd(of: app) == Self.at(430))
        // Nothing woke the app during its 240 s: the next relaunch starts again at 60 s.
        queue.relaunched(app, at: Self.at(1000))
        #expect(queue.relaunchDelayEnd(of: app) == Self.at(1060))
        queue.opened(app)
        #expect(queue.relaunchDelayEnd(of: app) == nil)
    }

    @Test("A transfer created in the background waits for the relaunch delay; one running already does not")
    func createdInBackgroundWaitsForDelay() throws {
        var queue = TransferQueue(device: Self.plugged)
        queue.relaunched(Self.reader, at: Self.at(0))
        queue.submit(Self.key, TransferRequirements(createdInBackground: true), earliestBegin: nil, at: Self.at(5))
        let why = try #require(queue.eligibility(of: Self.key, at: Self.at(5)))
        #expect(why.unmet == [.rateLimited(until: Self.at(60))])
        let decision = queue.decide(at: Self.at(5))
        #expect(decision.start == [])
        #expect(decision.wakeAt == Self.at(60))
        #expect(queue.decide(at: Self.at(60)).start == [Self.key])
        #expect(queue.decide(at: Self.at(61)).pause == [])
    }

    @Test("The relaunch delay has a ceiling")
    func relaunchCeiling() {
        var queue = TransferQueue()
        var now = Self.at(0)
        for _ in 0..<40 {
            queue.relaunched(Self.reader, at: now)
            now = queue.relaunchDelayEnd(of: Self.reader) ?? now
        }
        queue.relaunched(Self.reader, at: now)
        #expect(queue.relaunchDelayEnd(of: Self.reader).map { $0 - now } == .seconds(86_400))
    }

    @Test("A transfer is never a task request: the core refuses to schedule one")
    func transferKindRefused() throws {
        var d = Driver(policy: .iOS)
        try d.install(notes, modes: [.fetch, .processing])
        try d.openRegistered(notes, at: .zero)
        let effects = try d.submit(notes, TaskRequest(identifier: notes.refreshID, kind: .transfer), at: .t(1))
        #expect(effects.withoutBookkeeping == .rejected(notes.refreshID, .notPermitted))
        #expect(d.pendingIDs(notes).isEmpty)
    }
}
