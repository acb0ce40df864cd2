public import Foundation

#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS) || os(macOS))
extension ProcessInfo {
    /// Whether Low Power Mode is on: Apple's `isLowPowerModeEnabled`, which Foundation on Linux
    /// lacks. It reads the system that governs the app (``UIApplication/shared``'s connection):
    /// embedded, the device the app configured (`EmbeddedSystem.Configuration.device`, or the
    /// refresh setting); under `backgroundd`, the daemon's conditions, which read
    /// power-profiles-daemon's `power-saver` profile over D-Bus where there is one
    /// (docs/device-probes.md), or `bgctl device set low-power=on`; in the simulator, the
    /// scripted device. When it changes, ``Foundation/NSNotification/Name/NSProcessInfoPowerStateDidChange``
    /// is posted, with this object, on a global queue (as Apple posts it).
    ///
    /// ```swift
    /// if ProcessInfo.processInfo.isLowPowerModeEnabled { prefetcher.pause() }
    /// ```
    public var isLowPowerModeEnabled: Bool { isLowPowerModeEnabled(application: .shared) }

    /// ``isLowPowerModeEnabled`` against a given application's system, for code that injects
    /// its `UIApplication`.
    public func isLowPowerModeEnabled(application: UIApplication) -> Bool {
        application.connection.isLowPowerModeEnabled
    }

    /// Posts `NSProcessInfoPowerStateDidChange` on a global queue: the app runtime calls it when
    /// the system says Low Power Mode changed.
    static func postPowerStateChange() {
        DispatchQueue.global().async {
            NotificationCenter.default.post(name: .NSProcessInfoPowerStateDidChange, object: ProcessInfo.processInfo)
        }
    }
}

extension Notification.Name {
    /// Posted when Low Power Mode goes on or off (``Foundation/ProcessInfo/isLowPowerModeEnabled``);
    /// Apple's `NSNotification.Name.NSProcessInfoPowerStateDidChange`. The object is
    /// `ProcessInfo.processInfo`; it is posted on a global queue, not the main one.
    public static let NSProcessInfoPowerStateDidChange = Notification.Name(
        "NSProcessInfoPowerStateDidChangeNotification"
    )
}
#endif
