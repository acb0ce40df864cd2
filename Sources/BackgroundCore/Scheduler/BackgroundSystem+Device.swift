extension BackgroundSystem {
    /// The device's conditions as last reported.
    public var currentDevice: DeviceConditions { deviceConditions }

    mutating func setDevice(_ conditions: DeviceConditions, at now: Instant, into effects: inout [Effect]) {
        let reasonsBefore = unmetDeviceReasons
        defer { recordDeviceChange(from: reasonsBefore, at: now, into: &effects) }
        let wasIdle = deviceConditions.isIdle
        let lowPowerChanged = conditions.lowPowerMode != deviceConditions.lowPowerMode
        let wasLowPower = isLowPowerModeEnabled
        let refreshBefore = lowPowerChanged ? apps.map { backgroundRefreshStatus(of: $0.id) } : []
        deviceConditions = conditions
        if wasIdle && !conditions.isIdle {
            // "The system terminates any background processing tasks running when the user starts
            // using the device. Background refresh tasks aren't affected." (S13)
            expireProcessingForDeviceUse(at: now, into: &effects)
        }
        if lowPowerChanged { notifyRefreshStatusChanges(from: refreshBefore, into: &effects) }
        notifyPowerStateChange(from: wasLowPower, into: &effects)
    }

    /// Tells every app with a process that Low Power Mode went on or off, if it did (in app
    /// order, which is registration order: never a hash order).
    mutating func notifyPowerStateChange(from wasLowPower: Bool, into effects: inout [Effect]) {
        let lowPower = isLowPowerModeEnabled
        guard lowPower != wasLowPower else { return }
        countVisits(apps.count)
        for index in apps.indices where apps[index].state.hasProcess {
            effects.append(.powerStateChanged(apps[index].id, lowPowerMode: lowPower))
        }
    }

    /// Posts refresh-status changes to apps whose status moved.
    /// A device-wide setting changed: every app's status may move, so every app is looked at.
    mutating func notifyRefreshStatusChanges(from before: [BackgroundRefreshStatus], into effects: inout [Effect]) {
        countVisits(apps.count)
        for index in apps.indices {
            notifyRefreshStatusChange(index, from: index < before.count ? before[index] : .available, into: &effects)
        }
    }

    /// Posts the app's refresh-status change if its status moved and it has a process.
    mutating func notifyRefreshStatusChange(
        _ index: Int,
        from previous: BackgroundRefreshStatus,
        into effects: inout [Effect]
    ) {
        let status = backgroundRefreshStatus(of: apps[index].id)
        if status != previous && apps[index].state.hasProcess {
            effects.append(.backgroundRefreshStatusChanged(apps[index].id, status))
        }
    }
}
