import BackgroundExecution
import Foundation
import Testing

/// Issue 11: `bgctl status` and `bgctl why` say which mode keeps a running app awake and for
/// how long; `bgctl push` delivers a silent push over the app's control channel.
@Suite("Control channel: the mode that keeps the app awake, and bgctl push")
@MainActor
struct ModeControlTests {
    @Test("status and why name the mode that keeps the app awake and for how long, in text and JSON")
    func statusAndWhySayTheMode() throws {
        let h = SchedulerHarness(modes: [.audio])
        let playback = h.application.beginPlayingAudio()
        h.system.moveToBackground()
        h.clock.runPending()
        h.clock.advance(by: .seconds(725))

        let status = h.system.run(DebugCommand(action: .status, json: true))
        #expect(status.text.contains("kept running in the background by 'audio' for 12m 5s"))
        #expect(status.text.contains("mode 'audio' held since"))
        let document = try JSONDecoder().decode(StatusDocument.self, from: Data(try #require(status.document).utf8))
        #expect(document.keptAwakeBy?.mode == "audio")
        #expect(document.keptAwakeBy?.heldSeconds == 725)
        #expect(document.modes?.map(\.mode) == ["audio"])

        let why = h.system.run(DebugCommand(action: .why, json: true))
        #expect(why.text.hasPrefix("com.example.tests: kept running in the background by 'audio' for 12m 5s\n"))
        let whyDocument = try JSONDecoder().decode(WhyDocument.self, from: Data(try #require(why.document).utf8))
        #expect(whyDocument.keptAwakeBy?.mode == "audio")

        playback.end()
        h.clock.runPending()
        let after = h.system.run(DebugCommand(action: .status, json: true))
        #expect(!after.text.contains("kept running"))
        let ended = try JSONDecoder().decode(StatusDocument.self, from: Data(try #require(after.document).utf8))
        #expect(ended.keptAwakeBy == nil)
        #expect(ended.modes == [])
    }

    @Test("In the foreground a held mode is listed but keeps nothing awake")
    func foregroundHoldsButNeedsNoMode() throws {
        let h = SchedulerHarness(modes: [.location])
        _ = h.application.beginUpdatingLocation()
        let status = h.system.run(DebugCommand(action: .status))
        #expect(status.text.contains("mode 'location' held since"))
        #expect(!status.text.contains("kept running"))
    }

    @Test("push: delivered to the delegate, then waiting once the budget is spent, with the earliest time")
    func pushDeliversThenWaits() throws {
        let h = SchedulerHarness(modes: [.remoteNotification])
        let delegate = PushDelegate(completes: true)
        h.application.delegate = delegate
        h.system.moveToBackground()
        h.clock.runPending()
        for n in 0..<3 {
            let reply = h.system.run(DebugCommand(action: .push, json: true, payload: "{\"n\":\(n)}"))
            #expect(reply.outcome == .done)
            #expect(reply.text.contains("delivered"))
            h.clock.runPending()
            h.clock.advance(by: .seconds(60))
        }
        #expect(delegate.received.map { $0["n"] as? Int } == [0, 1, 2])
        let fourth = h.system.run(DebugCommand(action: .push, json: true, payload: #"{"n":3}"#))
        #expect(fourth.outcome == .done)
        #expect(fourth.text.contains("waiting for"))
        let document = try JSONDecoder().decode(PushDocument.self, from: Data(try #require(fourth.document).utf8))
        #expect(document.outcome == "waiting")
        #expect(document.silentPushesRemaining == 0)
        #expect(document.earliest != nil)
        h.clock.runPending()
        #expect(delegate.received.count == 3, "the fourth waits for the hour's window")
    }

    @Test("push: refused without remote-notification (a negative answer with the reason); bad payloads are rejected")
    func pushRefusedAndRejected() throws {
        let h = SchedulerHarness(modes: [.fetch])
        h.system.moveToBackground()
        h.clock.runPending()
        let refused = h.system.run(DebugCommand(action: .push, json: true, payload: "{}"))
        #expect(refused.outcome == .notFound)
        #expect(refused.text.contains("not delivered: UIBackgroundModes does not declare 'remote-notification'"))
        let document = try JSONDecoder().decode(PushDocument.self, from: Data(try #require(refused.document).utf8))
        #expect(document.outcome == "refused")

        #expect(h.system.run(DebugCommand(action: .push, payload: "[1]")).outcome == .rejected)
        #expect(throws: DebugCommandError.self) { try DebugCommand.decode(Data(#"{"action":"push"}"#.utf8)) }
        let escaped = String(repeating: "\\u0001", count: 4000)
        let large = #"{"action":"push","payload":"\#(escaped)"}"#
        #expect(throws: Never.self) { try DebugCommand.decode(Data(large.utf8)) }
    }
}
