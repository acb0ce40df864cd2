/// A change to the device or the app that a user can make, for "what if" answers.
public enum WhatIfChange: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Plug the device in (clears external power and a critically low battery).
    case plugIn
    /// Connect to a network.
    case connectToNetwork
    /// Stop using the device (lock it and leave it).
    case leaveDeviceIdle
    /// Unlock the device once after it started.
    case unlock
    /// Turn Low Power Mode off.
    case turnOffLowPowerMode
    /// Turn Background App Refresh on (the system switch and the app's).
    case turnOnBackgroundAppRefresh
    /// Open the app (clears a force quit and counts as use).
    case openApp

    public var description: String {
        switch self {
        case .plugIn: "plugged in"
        case .connectToNetwork: "connected to a network"
        case .leaveDeviceIdle: "the device is left idle"
        case .unlock: "the device is unlocked"
        case .turnOffLowPowerMode: "Low Power Mode is turned off"
        case .turnOnBackgroundAppRefresh: "Background App Refresh is turned on"
        case .openApp: "the app is opened"
        }
    }

    /// The device condition this change ends, as history records it; `nil` for opening the app.
    var clearedReason: WaitReason? {
        switch self {
        case .plugIn: .externalPower
        case .connectToNetwork: .network
        case .leaveDeviceIdle: .deviceIdle
        case .unlock: .firstUnlock
        case .turnOffLowPowerMode: .lowPowerMode
        case .turnOnBackgroundAppRefresh: .backgroundAppRefresh
        case .openApp: nil
        }
    }

    /// The change that clears a condition, if a user can make one.
    static func clearing(_ condition: UnmetCondition) -> WhatIfChange? {
        switch condition {
        case .requiresExternalPower, .batteryCriticallyLow: .plugIn
        case .requiresNetwork: .connectToNetwork
        case .deviceInUse: .leaveDeviceIdle
        case .notUnlockedSinceBoot: .unlock
        case .lowPowerMode: .turnOffLowPowerMode
        case .backgroundAppRefreshOff: .turnOnBackgroundAppRefresh
        case .forceQuit, .appNotUsedRecently: .openApp
        case .notBefore, .awaitingPredictedUse, .budgetExhausted, .rateLimited, .concurrencyLimit, .systemBusy: nil
        case .cellularNotAllowed, .expensiveNetworkNotAllowed, .constrainedNetworkNotAllowed,
            .requiresUnmeteredNetwork:
            nil
        }
    }
}

/// What would happen to a waiting request after some changes, computed by the core on a copy
/// of its state (never guessed).
///
/// ```swift
/// for whatIf in system.whatIfs(of: app, identifier: "com.example.notes.db-cleanup", at: now) {
///     print(whatIf.changes, whatIf.runsAt as Any)   // [plugIn] T+0: it runs now if plugged in
/// }
/// ```
public struct WhatIf: Sendable, Hashable, Codable {
    /// The changes made on the copy, in ``WhatIfChange`` order.
    public var changes: [WhatIfChange]
    /// The request's eligibility on the changed copy.
    public var eligibility: Eligibility
    /// For a single change that ends a device condition: the condition, and since when it has
    /// held without a break, from the device's recorded condition intervals ("no network since
    /// 14:02"). `nil` for combinations, for opening the app, and when no interval records it.
    public var heldBack: ConditionHeld?

    /// When it could run after the changes: `eligibility.earliestRun` when every remaining
    /// condition clears by itself, `nil` when it still waits on the device, the user or the app.
    public var runsAt: Instant? {
        eligibility.unmet.allSatisfy { $0.clearsAt != nil } ? eligibility.earliestRun : nil
    }
}

extension BackgroundSystem {
    /// The changes that would let a waiting request run, each alone and (when there are several)
    /// all together, with the answer the core gives on a changed copy of itself.
    ///
    /// - Returns: Empty when the request is not pending or nothing a user can change holds it.
    public func whatIfs(of app: AppID, identifier: String, at now: Instant) -> [WhatIf] {
        guard let current = eligibility(of: app, identifier: identifier, at: now) else { return [] }
        let changes = Set(current.unmet.compactMap(WhatIfChange.clearing))
        let ordered = WhatIfChange.allCases.filter(changes.contains)
        var sets = ordered.map { [$0] }
        if ordered.count > 1 { sets.append(ordered) }
        return sets.compactMap { set in
            var copy = self
            for change in set { copy.apply(change, for: app, at: now) }
            return copy.eligibility(of: app, identifier: identifier, at: now).map {
                WhatIf(changes: set, eligibility: $0, heldBack: heldBack(clearedBy: set))
            }
        }
    }

    /// The condition a single change ends, and since when the device's intervals show it held.
    private func heldBack(clearedBy changes: [WhatIfChange]) -> ConditionHeld? {
        guard changes.count == 1, let reason = changes[0].clearedReason,
            let since = history.heldSince(reason)
        else { return nil }
        return ConditionHeld(reason: reason, since: since)
    }

    private mutating func apply(_ change: WhatIfChange, for app: AppID, at now: Instant) {
        switch change {
        case .plugIn: deviceConditions.powerSource = .externalPower
        case .connectToNetwork: deviceConditions.network = .wifi
        case .leaveDeviceIdle: deviceConditions.isIdle = true
        case .unlock: deviceConditions.unlockedSinceBoot = true
        case .turnOffLowPowerMode:
            deviceConditions.lowPowerMode = false
            device.lowPowerMode = false
        case .turnOnBackgroundAppRefresh:
            device.systemSwitch = true
            if let index = appIndex[app] { apps[index].refreshSwitch = true }
        case .openApp:
            guard let index = appIndex[app] else { return }
            apps[index].forceQuit = false
            apps[index].usage.recordLaunch(at: max(now, self.now), limit: policy.scheduling.usageHistoryLimit)
        }
    }
}

/// A device condition and the instant since which it has held without a break.
public struct ConditionHeld: Sendable, Hashable, Codable {
    /// The condition ("a network", "external power", ...).
    public var reason: WaitReason
    /// Since when it has held, from the oldest unbroken recorded interval.
    public var since: Instant

    /// Creates the pair.
    public init(reason: WaitReason, since: Instant) {
        self.reason = reason
        self.since = since
    }
}
