import BackgroundExecution
import Foundation
import Synchronization
import Testing

@Suite("Background modes in the embedded system: BackgroundActivity and silent pushes (issue 11 §1, §2)")
@MainActor
struct BackgroundActivityTests {
    @Test("An audio service that plays keeps running in the background for an hour, then is suspended once it stops")
    func playingAudioKeepsTheAppRunning() throws {
        let h = SchedulerHarness(modes: [.audio])
        let playback = h.application.beginPlayingAudio()
        #expect(playback.keepsAppRunning)
        #expect(playback.refusal == nil)
        h.system.moveToBackground()
        h.clock.runPending()
        h.clock.advance(by: .seconds(3600))
        #expect(h.system.lifecycleState == .background)
        #expect(h.system.modeActivities.map(\.mode) == [.audio])
        #expect(h.system.terminationReports.isEmpty)
        playback.end()
        playback.end()  // only the first call does anything
        h.clock.runPending()
        #expect(h.system.lifecycleState == .suspended)
        #expect(h.system.modeActivities.isEmpty)
    }

    @Test("A tracker without UIBackgroundModes 'location' is refused in the background, with the reason, and suspended")
    func undeclaredLocation() throws {
        let h = SchedulerHarness(modes: [])
        h.system.moveToBackground()
        let tracking = h.application.beginUpdatingLocation()
        #expect(!tracking.keepsAppRunning)
        #expect(tracking.refusal?.contains("background location updates are refused") == true)
        h.clock.runPending()
        #expect(h.system.lifecycleState == .suspended)
    }

    @Test("withActivity holds a softphone's call for the length of the body and ends it after")
    func withActivityEndsOnEveryPath() async throws {
        let h = SchedulerHarness(modes: [.voip])
        struct Dropped: Error {}
        await #expect(throws: Dropped.self) {
            try await h.application.withActivity(.voip) {
                #expect(h.system.modeActivities.map(\.mode) == [.voip])
                throw Dropped()
            }
        }
        #expect(h.system.modeActivities.isEmpty)
    }

    @Test("A silent push resumes the suspended app, hands the payload to the delegate, and its completion suspends it")
    func silentPushReachesTheDelegate() throws {
        let h = SchedulerHarness(modes: [.remoteNotification])
        let delegate = PushDelegate(completes: true)
        h.application.delegate = delegate
        h.system.moveToBackground()
        h.clock.runPending()
        #expect(h.system.lifecycleState == .suspended)
        h.system.deliverRemoteNotification(
            try RemoteNotificationPayload(json: #"{"aps":{"content-available":1},"id":7}"#)
        )
        h.clock.runPending()
        #expect(delegate.received.map { $0["id"] as? Int } == [7])
        #expect(h.system.lifecycleState == .suspended)
        #expect(h.system.terminationReports.isEmpty)
    }

    @Test("A delegate that never calls the completion handler is ended with 0x8badf00d after 30 s")
    func silentPushCompletionEnforced() throws {
        let h = SchedulerHarness(modes: [.remoteNotification])
        let delegate = PushDelegate(completes: false)
        h.application.delegate = delegate
        h.system.moveToBackground()
        h.clock.runPending()
        h.system.deliverRemoteNotification(try RemoteNotificationPayload(json: "{}"))
        h.clock.advance(by: .seconds(29))
        #expect(h.system.terminationReports.isEmpty)
        h.clock.advance(by: .seconds(1))
        #expect(h.system.terminationReports.last?.code == .watchdogTimeout)
    }

    @Test("Payloads are checked at the edge: JSON objects of at most 4096 bytes")
    func payloadValidation() {
        #expect(throws: RemoteNotificationPayload.Invalid.self) { try RemoteNotificationPayload(json: "[1]") }
        #expect(throws: RemoteNotificationPayload.Invalid.self) { try RemoteNotificationPayload(json: "{") }
        let big = "{\"x\":\"" + String(repeating: "a", count: 4100) + "\"}"
        #expect(throws: RemoteNotificationPayload.Invalid.self) { try RemoteNotificationPayload(json: big) }
        #expect((try? RemoteNotificationPayload(json: #"{"aps":{}}"#)) != nil)
    }
}

/// An app delegate that records silent pushes and calls (or never calls) their completion.
@MainActor
final class PushDelegate: NSObject, UIApplicationDelegate {
    let completes: Bool
    private(set) var received: [[AnyHashable: Any]] = []

    init(completes: Bool) { self.completes = completes }

    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        received.append(userInfo)
        if completes { completionHandler(.newData) }
    }
}
