public import BackgroundCore
import Synchronization

/// Something the app is doing that a background mode lets it go on doing in the background:
/// playing audio, tracking location, a call, an accessory or Bluetooth session, a Push to Talk
/// channel.
///
/// On iOS an app keeps running in the background while it does one of these things, if its
/// `Info.plist` declares the mode in `UIBackgroundModes`; it is never suspended meanwhile and its
/// background budget does not tick. When the activity ends, the app is any background app again:
/// the usual budget for its background tasks, then suspension. The Apple calls each one stands
/// for are on the `UIApplication` methods that begin it (``UIApplication/beginPlayingAudio()``
/// and the others).
///
/// ```swift
/// // A music service: plays while in the background, is suspended once it stops.
/// let playback = UIApplication.shared.beginPlayingAudio()   // needs UIBackgroundModes "audio"
/// if !playback.keepsAppRunning { print(playback.refusal ?? "") }
/// player.play { playback.end() }
/// ```
///
/// Undeclared use gets what iOS does: the activity does not keep the app running (for `location`
/// in the background, updates are refused), ``keepsAppRunning`` is `false` and a warning naming
/// the missing mode is logged. A mode is held once per app: two activities of the same mode
/// share it, and the first ``end()`` ends it.
public final class BackgroundActivity: Sendable {
    /// The mode the activity uses, for example ``BackgroundCore/BackgroundMode/audio``.
    public let mode: BackgroundMode
    /// Whether the activity keeps the app running in the background.
    public let keepsAppRunning: Bool
    /// Why it does not keep the app running, when it does not.
    public let refusal: String?
    private let connection: any SystemConnection
    private let ended = Mutex(false)

    init(mode: BackgroundMode, connection: any SystemConnection) {
        self.mode = mode
        self.connection = connection
        switch connection.beginModeActivity(mode) {
        case .modeHeld:
            keepsAppRunning = true
            refusal = nil
        case .modeNotHeld(_, let reason):
            keepsAppRunning = false
            refusal = reason
        default:
            keepsAppRunning = false
            refusal = "unexpected answer"
        }
    }

    /// Ends the activity; from any thread, and only the first call does anything.
    public func end() {
        let first = ended.withLock { ended -> Bool in
            defer { ended = true }
            return !ended
        }
        guard first, keepsAppRunning else { return }
        connection.endModeActivity(mode)
    }

    /// Whether ``end()`` was called.
    public var isEnded: Bool { ended.withLock { $0 } }
}

extension UIApplication {
    /// Begins the activity of a background mode (one of ``BackgroundCore/BackgroundMode/activityModes``).
    ///
    /// - Parameter mode: The mode, declared in the app's `UIBackgroundModes` to keep it running.
    /// - Returns: The activity; call ``BackgroundActivity/end()`` when the work stops.
    public nonisolated func beginActivity(_ mode: BackgroundMode) -> BackgroundActivity {
        BackgroundActivity(mode: mode, connection: connection)
    }

    /// Playback or recording has started: iOS's `AVAudioSession.sharedInstance().setActive(true)`
    /// with a playing category (`UIBackgroundModes` `audio`). A Linux audio service calls it when
    /// it starts playing and ends it when it stops.
    public nonisolated func beginPlayingAudio() -> BackgroundActivity { beginActivity(.audio) }

    /// Location updates have started: `CLLocationManager.startUpdatingLocation()` with
    /// `allowsBackgroundLocationUpdates` (`UIBackgroundModes` `location`); end it where iOS code
    /// calls `stopUpdatingLocation()`. A tracker or fleet agent uses it while it records.
    public nonisolated func beginUpdatingLocation() -> BackgroundActivity { beginActivity(.location) }

    /// A call is in progress: a CallKit call (`CXProvider.reportNewIncomingCall` or a
    /// `CXStartCallAction`) in a VoIP app (`UIBackgroundModes` `voip`); end it when the call ends.
    /// A softphone holds it for the length of each call.
    public nonisolated func beginCall() -> BackgroundActivity { beginActivity(.voip) }

    /// A session with an accessory is open: an `EASession` on an `EAAccessory`'s protocol
    /// (`UIBackgroundModes` `external-accessory`); for a Linux agent, a serial or USB device session.
    public nonisolated func beginAccessorySession() -> BackgroundActivity { beginActivity(.externalAccessory) }

    /// A Bluetooth LE session is under way: as a central, a `CBCentralManager` connection
    /// (`bluetooth-central`); as a peripheral, a `CBPeripheralManager` advertising or serving
    /// (`bluetooth-peripheral`).
    ///
    /// - Parameter peripheral: `true` for the peripheral role, `false` (the default) for central.
    public nonisolated func beginBluetoothSession(asPeripheral peripheral: Bool = false) -> BackgroundActivity {
        beginActivity(peripheral ? .bluetoothPeripheral : .bluetoothCentral)
    }

    /// A Push to Talk channel is transmitting or receiving: `PTChannelManager`
    /// (`UIBackgroundModes` `push-to-talk`).
    public nonisolated func beginPushToTalk() -> BackgroundActivity { beginActivity(.pushToTalk) }

    /// Runs `body` while holding a mode's activity, and ends it on every path.
    ///
    /// ```swift
    /// try await app.withActivity(.voip) { try await call.run() }
    /// ```
    ///
    /// The body runs on the caller's actor (`isolation`), as `withTaskCancellationHandler` does.
    public func withActivity<Result>(
        _ mode: BackgroundMode,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let activity = beginActivity(mode)
        defer { activity.end() }
        return try await body()
    }
}
