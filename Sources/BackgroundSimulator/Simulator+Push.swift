public import BackgroundCore

extension Simulator {
    /// A silent push arrives for the app, as APNs would deliver it (`content-available: 1`).
    ///
    /// The system decides what happens, as on a device: in the foreground the app's
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` runs at once; in the
    /// background the app is resumed or launched only with `UIBackgroundModes`
    /// `remote-notification`, never after a force quit, within 3 pushes an hour (later ones wait,
    /// coalesced); the completion handler is due within 30 s.
    ///
    /// ```swift
    /// simulator.push(chat, payload: #"{"aps":{"content-available":1},"thread":42}"#)
    /// ```
    public func push(_ app: AppID, payload: String = #"{"aps":{"content-available":1}}"#) {
        note("silent push for \(app)")
        send(.remoteNotification(app, payload: payload))
    }

    /// The device reports memory pressure: one reclaim step, as iOS's jetsam (suspended apps
    /// first, least recently used first; then early expiration handlers for background apps
    /// holding assertions; at `.critical`, background apps). Report it again while it lasts.
    ///
    /// ```swift
    /// simulator.reportMemoryPressure(.warning)   // the least recently used suspended app ends
    /// ```
    public func reportMemoryPressure(_ pressure: MemoryPressure) {
        record(.device(.memoryPressure(pressure), deviceNow))
        send(.memoryPressure(pressure))
    }
}
