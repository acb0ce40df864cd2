extension BackgroundSystem {
    /// The device's conditions as last reported.
    public var currentDevice: DeviceConditions { deviceConditions }

    mutating func setDevice(_ conditions: DeviceConditions, at now: Instant, into effects: inout [Effect]) {
        let reasonsBefore = unmetDeviceReasons
        defer { recordDeviceChange(from: reasonsBefore, at: now, into: &effects) }
        let wasIdle = deviceConditions.isIdle
        let lowPowerChanged = conditions.lowPowerMode != deviceConditions.lowPowerMode
        let refreshBefore = lowPowerChanged ? apps.map { backgroundRefreshStatus(of: $0.id) } : []
        deviceConditions = conditions
        if wasIdle && !conditions.isIdle {
            // "The system terminates any background processing tasks running when the user starts
            // using the device. Background refresh tasks aren't affected." (S13)
            expireProcessingForDeviceUse(at: now, into: &effects)
        }
        if lowPowerChanged { notifyRefreshStatusChanges(from: refreshBefore, into: &effects) }
    }

    /// Posts refresh-status changes to apps whose status moved.
    mutating func notifyRefreshStatusChanges(from before: [BackgroundRefreshStatus], into effects: inout [Effect]) {
        for index in apps.indices {
            let status = backgroundRefreshStatus(of: apps[index].id)
            let previous = index < before.count ? before[index] : .available
            if status != previous && apps[index].state.hasProcess {
                effects.append(.backgroundRefreshStatusChanged(apps[index].id, status))
            }
        }
    }
}
