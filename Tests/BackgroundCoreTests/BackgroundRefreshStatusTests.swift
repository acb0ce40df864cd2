import BackgroundCore
import Testing

@Suite("Background App Refresh status")
struct BackgroundRefreshStatusTests {
    /// Notes and mail are open; maps was opened and force-quit (it has no process).
    static func threeApps() throws -> Driver {
        var d = Driver()
        for app in [notes, mail, maps] { try d.open(app, at: .zero) }
        try d.send(.terminate(maps, .userForceQuit), at: .zero)
        return d
    }

    private func statuses(_ d: Driver) -> [BackgroundRefreshStatus] {
        [notes, mail, maps].map { d.system.backgroundRefreshStatus(of: $0) }
    }

    @Test("Background App Refresh is available by default, even for an app the system has never seen")
    func availableByDefault() throws {
        let d = try Self.threeApps()
        #expect(statuses(d) == [.available, .available, .available])
        #expect(d.system.backgroundRefreshStatus(of: "com.example.unknown") == .available)
        #expect(!d.system.isLowPowerModeEnabled)
    }

    @Test("Turning the system switch off denies every app and notifies the running ones")
    func systemSwitchOff() throws {
        var d = try Self.threeApps()
        let effects = try d.send(.setBackgroundRefresh(.systemSwitch(false)), at: .t(1))
        #expect(
            effects == [
                .backgroundRefreshStatusChanged(notes, .denied), .backgroundRefreshStatusChanged(mail, .denied),
            ]
        )
        #expect(statuses(d) == [.denied, .denied, .denied])
    }

    @Test("Turning one app's switch off denies that app only")
    func appSwitchOff() throws {
        var d = try Self.threeApps()
        let effects = try d.send(.setBackgroundRefresh(.appSwitch(notes, false)), at: .t(1))
        #expect(effects == [.backgroundRefreshStatusChanged(notes, .denied)])
        #expect(statuses(d) == [.denied, .available, .available])
    }

    @Test("Low Power Mode denies Background App Refresh while it is on; running apps are told it changed")
    func lowPowerMode() throws {
        var d = try Self.threeApps()
        let on = try d.send(.setBackgroundRefresh(.lowPowerMode(true)), at: .t(1))
        #expect(
            on == [
                .backgroundRefreshStatusChanged(notes, .denied), .backgroundRefreshStatusChanged(mail, .denied),
                .powerStateChanged(notes, lowPowerMode: true), .powerStateChanged(mail, lowPowerMode: true),
            ]
        )
        #expect(d.system.isLowPowerModeEnabled)
        #expect(statuses(d) == [.denied, .denied, .denied])
        let effects = try d.send(.setBackgroundRefresh(.lowPowerMode(false)), at: .t(2))
        #expect(
            effects == [
                .backgroundRefreshStatusChanged(notes, .available), .backgroundRefreshStatusChanged(mail, .available),
                .powerStateChanged(notes, lowPowerMode: false), .powerStateChanged(mail, lowPowerMode: false),
            ]
        )
    }

    @Test("The device's Low Power Mode tells running apps once, when the combined state changes")
    func deviceLowPowerMode() throws {
        var d = try Self.threeApps()
        var conditions = d.system.currentDevice
        conditions.lowPowerMode = true
        let on = try d.send(.setDevice(conditions), at: .t(1))
        #expect(on.filter { if case .powerStateChanged = $0 { true } else { false } }.count == 2)
        #expect(on.contains(.powerStateChanged(notes, lowPowerMode: true)))
        #expect(!on.contains(.powerStateChanged(maps, lowPowerMode: true)), "no process, nothing to tell")
        // The refresh setting turned on too: Low Power Mode was already on, nothing new to say.
        let also = try d.send(.setBackgroundRefresh(.lowPowerMode(true)), at: .t(2))
        #expect(!also.contains { if case .powerStateChanged = $0 { true } else { false } })
        conditions.lowPowerMode = false
        let device = try d.send(.setDevice(conditions), at: .t(3))
        #expect(!device.contains { if case .powerStateChanged = $0 { true } else { false } }, "still on by the setting")
    }

    @Test("A restriction makes the status restricted, whatever the switches say")
    func restricted() throws {
        var d = try Self.threeApps()
        try d.send(.setBackgroundRefresh(.appSwitch(notes, false)), at: .t(1))
        let effects = try d.send(.setBackgroundRefresh(.restricted(true)), at: .t(2))
        #expect(
            effects == [
                .backgroundRefreshStatusChanged(notes, .restricted), .backgroundRefreshStatusChanged(mail, .restricted),
            ]
        )
        #expect(statuses(d) == [.restricted, .restricted, .restricted])
    }

    @Test("A change is announced only to running apps whose status actually changed")
    func onlyChangedRunningApps() throws {
        var d = try Self.threeApps()
        try d.send(.setBackgroundRefresh(.appSwitch(notes, false)), at: .t(1))
        let effects = try d.send(.setBackgroundRefresh(.systemSwitch(false)), at: .t(2))
        #expect(effects == [.backgroundRefreshStatusChanged(mail, .denied)])
        #expect(try d.send(.setBackgroundRefresh(.systemSwitch(false)), at: .t(3)) == [])
        #expect(
            try d.send(.setBackgroundRefresh(.systemSwitch(true)), at: .t(4)) == [
                .backgroundRefreshStatusChanged(mail, .available)
            ]
        )
    }

    @Test("An app's switch is remembered across relaunches")
    func appSwitchSurvivesRelaunch() throws {
        var d = try Self.threeApps()
        #expect(try d.send(.setBackgroundRefresh(.appSwitch(maps, false)), at: .t(1)) == [])
        try d.open(maps, at: .t(2))
        #expect(d.system.backgroundRefreshStatus(of: maps) == .denied)
    }

    @Test("The statuses carry Apple's raw values")
    func rawValues() {
        #expect(BackgroundRefreshStatus.allCases.map(\.rawValue) == [0, 1, 2])
        #expect(BackgroundRefreshStatus.allCases == [.restricted, .denied, .available])
    }
}
