/// The device-wide Background App Refresh settings.
struct DeviceRefreshSettings: Sendable, Hashable {
    var systemSwitch = true
    var lowPowerMode = false
    var restricted = false
}

extension BackgroundSystem {
    /// The app's Background App Refresh status (S6).
    ///
    /// `restricted` under a restriction; `denied` when the system switch or the app's switch is
    /// off, or in Low Power Mode (Apple turns refresh off in Low Power Mode but does not say which
    /// value it reports: **ours** is `denied`); otherwise `available`.
    public func backgroundRefreshStatus(of app: AppID) -> BackgroundRefreshStatus {
        if device.restricted { return .restricted }
        let appSwitch = appIndex[app].map { apps[$0].refreshSwitch } ?? true
        if !device.systemSwitch || !appSwitch || isLowPowerModeEnabled { return .denied }
        return .available
    }

    /// Whether Low Power Mode is on.
    public var isLowPowerModeEnabled: Bool { device.lowPowerMode || deviceConditions.lowPowerMode }

    mutating func setBackgroundRefresh(
        _ setting: BackgroundRefreshSetting,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        let reasonsBefore = unmetDeviceReasons
        defer { recordDeviceChange(from: reasonsBefore, at: now, into: &effects) }
        if case .appSwitch(let app, let on) = setting {
            // Only this app's status can change: no other app is looked at.
            let index = recordIndex(for: app)
            let before = backgroundRefreshStatus(of: app)
            apps[index].refreshSwitch = on
            persistAppState(index, into: &effects)
            if on { examineIfParked(index, at: now, into: &effects) }
            notifyRefreshStatusChange(index, from: before, into: &effects)
            return
        }
        let before = apps.map { backgroundRefreshStatus(of: $0.id) }
        let wasLowPower = isLowPowerModeEnabled
        defer { notifyPowerStateChange(from: wasLowPower, into: &effects) }
        switch setting {
        case .systemSwitch(let on): device.systemSwitch = on
        case .lowPowerMode(let on): device.lowPowerMode = on
        case .restricted(let on): device.restricted = on
        case .appSwitch: break  // above
        }
        notifyRefreshStatusChanges(from: before, into: &effects)
    }
}
