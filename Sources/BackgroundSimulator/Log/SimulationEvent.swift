public import BackgroundCore

/// One line of the simulation's event log: something the user, the device or the system did.
public struct SimulationEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// The simulated user did something.
        case user(UserAction)
        /// The device changed; the state after the change.
        case device(DeviceChange, DeviceState)
        /// The system decided something (an effect of the core).
        case system(Effect)
        /// The system answered an app's call (a begin, a register, a submit).
        case reply(AppID, Reply)
        /// An app's remaining background time, sampled when it changes course: `depleting` when
        /// it goes down from here (the app holds an assertion in the background).
        case budget(AppID, remaining: Duration, depleting: Bool)
        /// App code called the system (the calls timelines draw).
        case appCall(AppID, AppCall)
        /// App code said something (a log message through the system), for the log's reader.
        case appCode(AppID, String)
        /// A note from the test or the scenario.
        case note(String)
        /// An invariant did not hold.
        case violation(InvariantViolation)
        /// A background transfer moved on the virtual network.
        case transfer(TransferActivity)
    }

    /// When.
    public var at: Instant
    /// What.
    public var kind: Kind

    /// Creates an event.
    public init(at: Instant, kind: Kind) {
        self.at = at
        self.kind = kind
    }

    /// The app the event concerns, if any.
    public var app: AppID? {
        switch kind {
        case .user(let action): return action.app
        case .device, .note: return nil
        case .system(let effect): return effect.app
        case .budget(let app, _, _), .appCode(let app, _), .appCall(let app, _), .reply(let app, _): return app
        case .violation(let violation): return violation.app
        case .transfer(let activity): return activity.app
        }
    }
}

/// A call app code made that the log keeps in structured form.
public enum AppCall: Sendable, Hashable, CustomStringConvertible {
    /// `beginBackgroundTask(withName:expirationHandler:)`; `id` is `nil` when it was not granted.
    case beginBackgroundTask(name: String, id: AssertionID?)
    /// `endBackgroundTask(_:)`.
    case endBackgroundTask(AssertionID)

    public var description: String {
        switch self {
        case .beginBackgroundTask(let name, let id?):
            return "beginBackgroundTask(withName: \"\(name)\") → #\(id.rawValue)"
        case .beginBackgroundTask(let name, nil): return "beginBackgroundTask(withName: \"\(name)\") → invalid"
        case .endBackgroundTask(let id): return "endBackgroundTask(#\(id.rawValue))"
        }
    }
}

/// Something the simulated user does.
public enum UserAction: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Taps the app's icon: launches it or brings it to the foreground.
    case open(AppID)
    /// Goes to the home screen: the foreground app moves to the background.
    case goHome
    /// Swipes the app away in the app switcher.
    case forceQuit(AppID)
    /// Locks the device (screen off); the foreground app moves to the background.
    case lock
    /// Unlocks the device (to the home screen).
    case unlock
    /// Stops the app's running continued-processing task with this identifier (its Live Activity).
    case stopTask(AppID, String)

    /// The app acted on, if any.
    public var app: AppID? {
        switch self {
        case .open(let app), .forceQuit(let app), .stopTask(let app, _): return app
        case .goHome, .lock, .unlock: return nil
        }
    }

    public var description: String {
        switch self {
        case .open(let app): return "user opens \(app)"
        case .goHome: return "user goes to the home screen"
        case .forceQuit(let app): return "user force-quits \(app)"
        case .lock: return "user locks the device"
        case .unlock: return "user unlocks the device"
        case .stopTask(let app, let identifier): return "user stops \(app)'s task \(identifier)"
        }
    }
}

/// A change of the simulated device.
public enum DeviceChange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The charger was connected.
    case pluggedIn
    /// The charger was disconnected.
    case unplugged
    /// The battery reached this level (every whole percent, and any level set by hand).
    case batteryLevel(Double)
    /// The network changed.
    case network(DeviceConditions.Network, metered: Bool)
    /// Low Power Mode switched; `automatic` when the device did it (threshold or charge).
    case lowPowerMode(Bool, automatic: Bool)
    /// The user went away (idle) or came back.
    case idle(Bool)
    /// The screen locked or unlocked.
    case locked(Bool)
    /// A Background App Refresh switch changed.
    case backgroundAppRefresh(BackgroundRefreshSetting)
    /// The device restarted; the system's persisted state was read back.
    case reboot
    /// The battery ran out: the device switched off, and every app with it.
    case shutdown
    /// The device switched on again (plugged in after running out).
    case powerOn
    /// The device reported memory pressure (``Simulator/reportMemoryPressure(_:)``).
    case memoryPressure(MemoryPressure)

    public var description: String {
        switch self {
        case .pluggedIn: return "plugged in"
        case .unplugged: return "unplugged"
        case .batteryLevel(let level): return "battery \(Int((level * 100).rounded())) %"
        case .network(let network, let metered):
            return "network \(network.rawValue)\(metered ? " (metered)" : "")"
        case .lowPowerMode(let on, let automatic):
            return "Low Power Mode \(on ? "on" : "off")\(automatic ? " (automatic)" : "")"
        case .idle(let idle): return idle ? "user away (idle)" : "user back (not idle)"
        case .locked(let locked): return locked ? "screen locked" : "screen unlocked"
        case .backgroundAppRefresh(let setting): return "Background App Refresh: \(setting)"
        case .reboot: return "reboot"
        case .shutdown: return "battery empty: device off"
        case .powerOn: return "device on"
        case .memoryPressure(let level): return "memory pressure: \(level)"
        }
    }
}

extension Effect {
    /// The app an effect concerns, if any.
    public var app: AppID? {
        switch self {
        case .assertionDenied(let app, _, _), .assertionRevoked(let app, _, _), .runExpirationHandler(let app, _),
            .deliverDidEnterBackground(let app), .deliverBackgroundWake(let app), .stateChanged(let app, _, _),
            .suspend(let app), .exit(let app, _, _), .terminate(let app, _),
            .backgroundRefreshStatusChanged(let app, _), .launch(let app, _, _), .resume(let app, _),
            .fault(let app, _), .runTasks(let app, _), .expireTask(let app, _), .taskFinished(let app, _, _),
            .modeChanged(let app, _, _), .powerStateChanged(let app, _):
            return app
        case .log(let record): return record.app
        case .scheduleWakeup, .cancelWakeup, .persist: return nil
        }
    }
}
