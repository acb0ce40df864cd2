import BackgroundCore
import BackgroundExecution
import BackgroundProtocol
import BackgroundTestSupport
import Testing

/// The protocol's messages and codec: everything the core says survives the trip through bytes,
/// and untrusted bytes are refused with a typed error, never a crash.
struct ProtocolCodecTests {
    static let app: AppID = "com.example.wire"

    /// A day of one app through the core: every event sent and every effect it answered with.
    static func traffic() throws -> (events: [Event], effects: [Effect], replies: [Reply]) {
        var core = BackgroundSystem(policy: .iOS)
        var events: [Event] = []
        var effects: [Effect] = []
        var replies: [Reply] = []
        let refresh = "com.example.wire.refresh"
        let manifest = AppManifest(
            bundleIdentifier: app,
            permittedTaskIdentifiers: [refresh, "com.example.wire.process"],
            backgroundModes: [.fetch, .processing]
        )
        var request = TaskRequest(identifier: refresh, kind: .appRefresh, earliestBegin: .seconds(600))
        request.title = "Réfresh ✓"
        let script: [(Event, Instant)] = [
            (.install(manifest), .zero), (.launch(app, .foreground), .zero),
            (.registerTaskHandler(app, identifier: refresh), .zero),
            (.registerTaskHandler(app, identifier: "com.example.other"), .zero),
            (.finishLaunching(app), .zero), (.activate(app), .zero),
            (.submitTaskRequest(app, request), .seconds(1)),
            (.submitTaskRequest(app, TaskRequest(identifier: "x.y", kind: .processing)), .seconds(1)),
            (.beginAssertion(app, name: "Upload", origin: CallSite(), hasExpirationHandler: true), .seconds(2)),
            (.deactivate(app), .seconds(3)), (.enterBackground(app), .seconds(3)),
            (.didEnterBackgroundReturned(app), .seconds(3)), (.tick, .seconds(30)),
            (.expirationHandlerReturned(app, AssertionID(rawValue: 1)), .seconds(30)), (.tick, .seconds(40)),
            (.launch(app, .background), .seconds(50)), (.tick, .seconds(700)),
            (.setBackgroundRefresh(.lowPowerMode(true)), .seconds(800)),
            (.terminate(app, .userForceQuit), .seconds(900)),
        ]
        for (event, instant) in script {
            events.append(event)
            do {
                if let reply = try core.handle(event, at: instant, into: &effects) { replies.append(reply) }
            } catch {
                continue  // an illegal step is fine: the point is the traffic
            }
        }
        return (events, effects, replies)
    }

    @Test("Every event, effect and reply of a run comes back equal after a trip through the protocol's bytes")
    func roundTrip() throws {
        let traffic = try Self.traffic()
        var kinds: Set<String> = []
        for event in traffic.events {
            let bytes = try ProtocolCodec.encode(AppMessage.event(event))
            #expect(try ProtocolCodec.decode(AppMessage.self, from: bytes) == .event(event))
        }
        for effect in traffic.effects {
            kinds.insert(String(describing: effect).prefix { $0 != "(" }.description)
            let message = SystemMessage.pushed([effect])
            #expect(try ProtocolCodec.decode(SystemMessage.self, from: ProtocolCodec.encode(message)) == message)
        }
        for reply in traffic.replies {
            let message = SystemMessage.answer(reply, [])
            #expect(try ProtocolCodec.decode(SystemMessage.self, from: ProtocolCodec.encode(message)) == message)
        }
        #expect(kinds.isSuperset(of: ["launch", "stateChanged", "terminate", "persist", "runExpirationHandler"]))
        #expect(Set(traffic.replies.map { String(describing: $0).prefix { $0 != "(" } }).count >= 4)
    }

    @Test("Instants and condition waits cross exactly: a machine up 200 days, a wait measured to the nanosecond")
    func exactTimes() throws {
        // Found by the fuzzer on the encoding transport: a wait's Double seconds came back a few
        // attoseconds off, the message was not equal, and the fault ended the process (in
        // RealClockSchedulerTests, the app completing its cleanup task, before the store write).
        let app: AppID = "com.fuzz.app1"
        let record = RunRecord(
            identifier: "com.fuzz.app1.refresh",
            kind: .appRefresh,
            submittedAt: Instant(offset: .seconds(3527)),
            startedAt: Instant(offset: .nanoseconds(6_129_098_654_715)),
            endedAt: Instant(offset: .nanoseconds(6_154_098_654_715)),
            outcome: .failed,
            waits: [
                ConditionWait(reason: .earliestBeginDate, duration: .seconds(1828)),
                ConditionWait(reason: .lowPowerMode, duration: .nanoseconds(1_052_098_654_715)),
            ]
        )
        let uptime = Instant(offset: .seconds(200 * 86_400) + .nanoseconds(1))
        let messages: [SystemMessage] = [
            .pushed([.persist(.recordRun(app, record))]),
            .pushed([.scheduleWakeup(at: uptime)]),
            .answer(nil, [.scheduleWakeup(at: Instant(offset: .nanoseconds(Int64.max)))]),
        ]
        for message in messages {
            #expect(try ProtocolCodec.decode(SystemMessage.self, from: ProtocolCodec.encode(message)) == message)
        }
    }

    @Test("Bytes that are not a message, another version, trailing bytes and oversized input are typed errors")
    func refusals() throws {
        let good = try ProtocolCodec.encode(AppMessage.event(.tick))
        #expect(throws: WireError.notAMessage) { try ProtocolCodec.decode(AppMessage.self, from: []) }
        #expect(throws: WireError.notAMessage) { try ProtocolCodec.decode(AppMessage.self, from: [1, 2, 3, 4, 5]) }
        var other = good
        other[3] = ProtocolCodec.version + 1
        #expect(throws: WireError.unsupportedVersion(ProtocolCodec.version + 1)) {
            try ProtocolCodec.decode(AppMessage.self, from: other)
        }
        #expect(throws: WireError.trailingBytes(count: 1)) {
            try ProtocolCodec.decode(AppMessage.self, from: good + [0])
        }
        let limits = WireLimits(maximumMessageBytes: 8, maximumDepth: 32, maximumCount: 100)
        #expect(throws: WireError.self) { try ProtocolCodec.decode(AppMessage.self, from: good, limits: limits) }
        // A well-formed value of the wrong shape.
        var wrong = Array(good[0..<4])
        WireValue.string("hello").write(into: &wrong)
        #expect(throws: WireError.self) { try ProtocolCodec.decode(AppMessage.self, from: wrong) }
    }

    @Test("Every truncation of a message is refused as truncated")
    func truncations() throws {
        let effect = Effect.log(LogRecord(.notice, app: Self.app, "a message with some length"))
        let bytes = try ProtocolCodec.encode(SystemMessage.pushed([effect, .cancelWakeup]))
        for length in 4..<bytes.count {
            #expect(throws: WireError.self) {
                try ProtocolCodec.decode(SystemMessage.self, from: Array(bytes[0..<length]))
            }
        }
    }

    @Test("Lying counts, deep nesting, unknown tags and bad UTF-8 are refused before any work is done")
    func hostileValues() {
        // An array claiming 2^31 elements in a 9-byte value.
        #expect(throws: WireError.self) { try WireValue.read([6, 0, 0, 0, 0x80, 0, 0, 0, 0]) }
        #expect(throws: WireError.tooMany(count: 200, limit: 100)) {
            try WireValue.read([6, 200, 0, 0, 0] + [UInt8](repeating: 0, count: 200), limits: .init(maximumCount: 100))
        }
        var deep: [UInt8] = []
        for _ in 0..<100 { deep += [6, 1, 0, 0, 0] }  // arrays of one array, 100 deep
        deep.append(0)
        #expect(throws: WireError.tooDeep(limit: 32)) { try WireValue.read(deep) }
        #expect(throws: WireError.unknownTag(9, at: 0)) { try WireValue.read([9]) }
        #expect(throws: WireError.invalidUTF8(at: 1)) { try WireValue.read([5, 2, 0, 0, 0, 0xC3, 0x28]) }
    }

    @Test("Seeded random damage to real messages is always refused or decoded, never a crash")
    func damage() throws {
        let traffic = try Self.traffic()
        let messages = try traffic.effects.map { try ProtocolCodec.encode(SystemMessage.pushed([$0])) }
        var generator = SplitMix64(seed: 8)
        var refused = 0
        for round in 0..<3000 {
            var bytes = messages[round % messages.count]
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = 4 + Int(generator.next() % UInt64(bytes.count - 4))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                _ = try ProtocolCodec.decode(SystemMessage.self, from: bytes)
            } catch is WireError {
                refused += 1
            }
        }
        #expect(refused > 1000)
    }

    @Test("The embedded system's behaviour is the same when every event and answer crosses the byte boundary")
    @MainActor
    func encodingTransport() {
        for encodes in [false, true] {
            let clock = ManualClock()
            let log = EffectLog()
            var configuration = EmbeddedSystem.Configuration.test(app: Self.app, policy: .iOS, clock: clock, log: log)
            configuration.encodesMessages = encodes
            let system = EmbeddedSystem(configuration: configuration)
            let application = UIApplication(connection: system)
            let expired = Recorder<String>()
            let id = application.beginBackgroundTask(withName: "Upload") { expired.append("Upload") }
            #expect(id.rawValue == 1)
            system.moveToBackground()
            clock.advance(by: .seconds(26))
            #expect(expired.all == ["Upload"], "encodes: \(encodes)")
            application.endBackgroundTask(id)
            clock.advance(by: .seconds(1))
            #expect(system.lifecycleState == .suspended, "encodes: \(encodes)")
            #expect(system.terminationReports.isEmpty)
        }
    }
}
