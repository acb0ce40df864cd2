import BackgroundControl
import BackgroundCore
import Foundation

/// What the control channel says about background modes and silent pushes: the mode that keeps
/// the app awake (`bgctl status`, `bgctl why`) and `bgctl push`.
extension EmbeddedSystem {
    /// The mode that keeps the app running in the background now, if one does
    /// (``BackgroundCore/BackgroundSystem/modeKeepingAwake(_:)``).
    public var keptAwake: ModeActivity? { state.withLock { $0.core.modeKeepingAwake(app) } }

    /// `kept running in the background by 'audio' for 12m 5s` and a newline, or nothing.
    func keptAwakeLine() -> String {
        keptAwake.map { "\(app): \($0.keepsAwakeText(at: now))\n" } ?? ""
    }

    /// The modes held now, as documents.
    func heldModeDocuments() -> (held: [HeldModeDocument], keptAwakeBy: HeldModeDocument?) {
        let now = self.now
        let held = modeActivities.map { HeldModeDocument($0, at: now, formatInstant: formatWallClock) }
        let awake = keptAwake.map { HeldModeDocument($0, at: now, formatInstant: formatWallClock) }
        return (held, awake)
    }

    /// `bgctl push`: checks the payload, delivers it and says what became of it. A refused push
    /// is a negative answer (`DebugReply.Outcome.notFound`, exit 1); a malformed payload is
    /// rejected (exit 65).
    func push(_ json: String, json asked: Bool?) -> DebugReply {
        let payload: RemoteNotificationPayload
        do {
            payload = try RemoteNotificationPayload(json: json)
        } catch {
            return DebugReply(.rejected, "payload: \(error.reason)\n")
        }
        let outcome = deliverRemoteNotification(payload)
        let remaining = state.withLock { $0.core.silentPushesRemaining(of: app, at: $0.core.now) }
        let text =
            "\(ControlCharacters.escaped(app.bundleIdentifier)): \(outcome.text(formatInstant: formatWallClock))\n"
        var refused = false
        if case .refused = outcome { refused = true }
        return withDocument(DebugReply(refused ? .notFound : .done, text), if: asked) {
            let document = PushDocument(
                app: app,
                outcome: outcome.name,
                reason: outcome.reason,
                earliest: outcome.earliest.map(formatWallClock),
                silentPushesRemaining: remaining
            )
            return try WhyDocument.encode(document)
        }
    }
}
