public import BackgroundCore

extension Simulator {
    /// The simulated device: charger, battery, network, Low Power Mode, idleness, reboots.
    public var device: DeviceDriver { DeviceDriver(simulator: self) }
}

/// Drives the simulated device. Reach it as ``Simulator/device``.
@MainActor
public struct DeviceDriver {
    let simulator: Simulator

    /// The device now, with the battery level at this instant.
    public var state: DeviceState { simulator.deviceNow }

    /// Connects the charger. A device whose battery ran out switches on again.
    public func plugIn() {
        simulator.changeDevice(.pluggedIn) { $0.powerSource = .externalPower }
        if !simulator.deviceState.isOn { simulator.boot(.powerOn) }
    }

    /// Disconnects the charger.
    public func unplug() {
        simulator.changeDevice(.unplugged) { $0.powerSource = .battery }
    }

    /// Sets the battery level (0 to 1) by hand; from there it drains or charges as the model says.
    public func setBatteryLevel(_ level: Double) {
        let clamped = min(max(level, 0), 1)
        simulator.changeDevice(.batteryLevel(clamped)) { $0.batteryLevel = clamped }
        simulator.checkBatteryThresholds()
    }

    /// Switches Low Power Mode, as the user does in Settings.
    public func setLowPowerMode(_ on: Bool) {
        simulator.changeDevice(.lowPowerMode(on, automatic: false)) { $0.lowPowerMode = on }
    }

    /// Changes the network. Cellular is metered unless `metered` says otherwise; Wi-Fi is not.
    public func setNetwork(_ network: DeviceConditions.Network, metered: Bool? = nil) {
        let isMetered = metered ?? (network == .cellular)
        simulator.changeDevice(.network(network, metered: isMetered)) { state in
            state.network = network
            state.isMetered = network != .none && isMetered
        }
    }

    /// Says whether the user is away (idle) or using the device, whatever the screen does.
    ///
    /// It holds until the user acts: unlocking or opening an app makes the device busy, and
    /// the next lock makes it idle again after ``BatteryModel/idleAfterLock``.
    public func setIdle(_ idle: Bool) {
        simulator.changeDevice(.idle(idle)) { $0.isIdle = idle }
    }

    /// Switches Background App Refresh: the system switch, or one app's.
    public func setBackgroundAppRefresh(_ on: Bool, for app: AppID? = nil) {
        let setting: BackgroundRefreshSetting = app.map { .appSwitch($0, on) } ?? .systemSwitch(on)
        if app == nil { simulator.deviceState.backgroundAppRefresh = on }
        simulator.record(.device(.backgroundAppRefresh(setting), simulator.deviceNow))
        guard simulator.deviceState.isOn else {
            // Settings change while the phone is off too: the system applies them when it starts.
            if app != nil { simulator.refreshSettingsWhileOff.append(setting) }
            return
        }
        simulator.send(.setBackgroundRefresh(setting))
    }

    /// Restarts the device: every process ends, the system starts again and reads back what it
    /// persisted, and no background task runs until the user unlocks the device.
    public func reboot() {
        simulator.boot(.reboot)
    }
}

extension Simulator {
    /// Changes the device, logs the change, and tells the system if what it sees changed.
    func changeDevice(_ change: DeviceChange, _ mutate: (inout DeviceState) -> Void) {
        deviceState.batteryLevel = battery.level(at: now)
        let before = deviceState
        mutate(&deviceState)
        if deviceState.batteryLevel != before.batteryLevel { battery.set(deviceState.batteryLevel, at: now) }
        if deviceState.lowPowerMode != before.lowPowerMode { autoLowPowerArmed = false }
        switch change {
        case .lowPowerMode, .idle, .network:
            if deviceState == before { return }  // a setting set to what it was: nothing happened
        default:
            break
        }
        record(.device(change, deviceState))
        if deviceState.isOn && deviceState.powerSource == .battery && deviceState.batteryLevel <= 0 {
            shutDown()
        } else if deviceState.isOn, deviceState.conditions != before.conditions {
            send(.setDevice(deviceState.conditions))
            transferEngine?.deviceChanged()
        } else if deviceState.isMetered != before.isMetered {
            transferEngine?.deviceChanged()
            refreshBattery()
        } else {
            refreshBattery()
        }
    }

    var currentActivity: DeviceActivity {
        DeviceActivity(
            screenOn: deviceState.isOn && !deviceState.isLocked,
            backgroundWorkers: deviceState.isOn ? backgroundApps.count : 0,
            network: deviceState.network,
            charging: deviceState.powerSource == .externalPower,
            lowPowerMode: deviceState.lowPowerMode
        )
    }

    /// Recomputes the battery's rate after anything that may change it, and schedules the
    /// next whole-percent step.
    func refreshBattery(force: Bool = false) {
        let level = battery.level(at: now)
        var rate = configuration.battery.rate(for: currentActivity, at: level)
        if !deviceState.isOn && deviceState.powerSource == .battery { rate = 0 }
        guard force || rate != battery.rate || (rate != 0 && battery.target == nil) else { return }
        let step = configuration.battery.nextStep(from: level, rate: rate)
        battery.change(rate: rate, target: step?.level, at: now)
        if let step { schedule(at: now + step.after, .batteryStep(battery.generation)) }
    }

    /// The battery reached its next whole percent.
    func batteryStep(_ generation: UInt64) {
        guard generation == battery.generation, let target = battery.target else { return }
        battery.set(target, at: now)
        deviceState.batteryLevel = target
        record(.device(.batteryLevel(target), deviceState))
        checkBatteryThresholds()
        if deviceState.isOn && target <= 0 && deviceState.powerSource == .battery {
            shutDown()
            return
        }
        if deviceState.isOn { send(.setDevice(deviceState.conditions)) }
        // `send` ends with a refresh, which after `set` (no step scheduled) scheduled the next
        // step at the rate of now; forcing another would only schedule it again, leaving the
        // first to run as a stale no-op (it was one in two of the battery's jobs).
        if battery.target == nil || !deviceState.isOn { refreshBattery(force: true) }
    }

    /// Low Power Mode switches itself on at the policy's critical level (if the model says the
    /// user accepts iOS's offer), and off when charging reaches the model's level, as iOS does.
    func checkBatteryThresholds() {
        let level = deviceState.batteryLevel
        let threshold = configuration.policy.scheduling.criticalBatteryLevel
        if level > threshold + 1e-9 && deviceState.powerSource == .battery { autoLowPowerArmed = true }
        if configuration.battery.switchesLowPowerModeOn, deviceState.powerSource == .battery,
            !deviceState.lowPowerMode, autoLowPowerArmed, level <= threshold + 1e-9
        {
            changeDevice(.lowPowerMode(true, automatic: true)) { $0.lowPowerMode = true }
            autoLowPowerArmed = false
        } else if deviceState.powerSource == .externalPower, deviceState.lowPowerMode,
            level >= configuration.battery.lowPowerModeOffLevel - 1e-9
        {
            changeDevice(.lowPowerMode(false, automatic: true)) { $0.lowPowerMode = false }
            autoLowPowerArmed = true
        }
    }

    /// The battery ran out: every process ends with the device, without reports.
    func shutDown() {
        killAllProcesses()
        core = BackgroundSystem(policy: configuration.policy, device: deviceState.conditions)
        checker.systemRestarted()
        deviceState.isOn = false
        deviceState.isLocked = true
        deviceState.isIdle = true
        record(.device(.shutdown, deviceState))
        armedWakeup = nil
        transferEngine?.deviceChanged()
        refreshBattery(force: true)
    }

    /// Starts the system again and restores what it persisted, as after a restart.
    func boot(_ change: DeviceChange) {
        let before = core.knownApps.map { ($0, core.pendingRequests(of: $0)) }
        killAllProcesses()
        deviceState.batteryLevel = battery.level(at: now)
        deviceState.isOn = true
        deviceState.isLocked = true
        deviceState.isIdle = false
        deviceState.unlockedSinceBoot = false
        record(.device(change, deviceState))
        core = BackgroundSystem(policy: configuration.policy, device: deviceState.conditions)
        armedWakeup = nil
        checker.systemRestarted()
        for app in installed { send(.install(app.manifest)) }
        for saved in store.load(clock: wallClock) { send(.restore(saved)) }
        // Settings are the device's, not the system's store: they survive the restart.
        if !deviceState.backgroundAppRefresh { send(.setBackgroundRefresh(.systemSwitch(false))) }
        for setting in refreshSettingsWhileOff { send(.setBackgroundRefresh(setting)) }
        refreshSettingsWhileOff = []
        checker.checkRestored(before, core: core, at: now)
        flushViolations()
        transferEngine?.deviceChanged()
        scheduleIdle()
        refreshBattery(force: true)
    }

    private func killAllProcesses() {
        for app in processes.keys.sorted() { endProcess(app) }
        for index in runIndex.values.sorted() { runRecords[index].finish(.killed, at: now) }
        runIndex = [:]
        foregroundApp = nil
        backgroundApps = []
        lastBudgetSample = [:]
    }
}
