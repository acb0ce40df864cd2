public import BackgroundCore

extension Simulator {
    /// The simulated user: opens apps, goes home, force-quits, locks and unlocks.
    public var user: UserDriver { UserDriver(simulator: self) }
}

/// Drives the simulated user. Reach it as ``Simulator/user``.
@MainActor
public struct UserDriver {
    let simulator: Simulator

    /// Opens the app: launches it, or brings it back, and makes it active. Unlocks the device
    /// first, and sends the app in the foreground, if another, to the background.
    ///
    /// The app is inactive at once, and active after its launch code and foreground callbacks
    /// have run, at the next turn of the simulation (the next `advance`, `run` or `runPending`).
    public func open(_ app: AppID) {
        simulator.userOpens(app)
    }

    /// Goes to the home screen: the foreground app moves to the background.
    public func goHome() {
        simulator.act(.goHome) { $0.sendForegroundAppToBackground() }
    }

    /// Swipes the app away in the app switcher: its process ends, and it gets no background
    /// launches until the user opens it again.
    public func forceQuit(_ app: AppID) {
        simulator.act(.forceQuit(app)) { simulator in
            if simulator.foregroundApp == app { simulator.sendForegroundAppToBackground() }
            simulator.transferEngine?.forceQuit(app)
            guard simulator.state(of: app).hasProcess else {
                simulator.note("\(app) has no process to quit")
                return
            }
            simulator.send(.terminate(app, .userForceQuit))
        }
    }

    /// Stops a running continued-processing task from its Live Activity, as the user can: the
    /// task's expiration handler runs and the run ends (iOS 26).
    ///
    /// - Parameters:
    ///   - identifier: The request's identifier.
    ///   - app: The app running it.
    public func stopContinuedProcessingTask(_ identifier: String, of app: AppID) {
        simulator.act(.stopTask(app, identifier)) { simulator in
            let running = simulator.taskRuns(of: app).last {
                $0.identifier == identifier && $0.outcome == nil && $0.run.request.kind == .continuedProcessing
            }
            guard let running else {
                simulator.note("\(app) has no continued-processing task \(identifier) running")
                return
            }
            simulator.send(.userCancelledTask(app, running.run.id))
        }
    }

    /// Locks the device: the screen goes off, the foreground app moves to the background, and
    /// the device turns idle after ``BatteryModel/idleAfterLock``.
    public func lock() {
        simulator.act(.lock) { $0.lockScreen() }
    }

    /// Unlocks the device, to the home screen.
    public func unlock() {
        simulator.act(.unlock) { $0.unlockScreen() }
    }
}

extension Simulator {
    /// Records a user action and carries it out, unless the device is off.
    func act(_ action: UserAction, _ body: (Simulator) -> Void) {
        record(.user(action))
        guard deviceState.isOn else {
            note("ignored: the device is off")
            return
        }
        body(self)
    }

    func userOpens(_ app: AppID) {
        act(.open(app)) { simulator in
            guard simulator.installed.contains(where: { $0.id == app }) else {
                simulator.note("\(app) is not installed")
                return
            }
            simulator.unlockScreen()
            simulator.transferEngine?.opened(app)
            if let current = simulator.foregroundApp, current != app { simulator.sendForegroundAppToBackground() }
            switch simulator.state(of: app) {
            case .notRunning, .terminated:
                simulator.send(.launch(app, .foreground))
            case .background, .suspended:
                simulator.send(.enterForeground(app))
            case .inactive, .active:
                break
            }
            simulator.foregroundApp = app
            // The app becomes active after its launch or foreground callbacks, which see it
            // inactive, as on iOS: queued behind them, unless the user has moved on meanwhile.
            simulator.schedule(
                at: simulator.now,
                .driver({ [unowned simulator] in
                    guard simulator.foregroundApp == app, simulator.state(of: app) == .inactive else { return }
                    simulator.send(.activate(app))
                })
            )
        }
    }

    func sendForegroundAppToBackground() {
        guard let app = foregroundApp else { return }
        foregroundApp = nil
        if state(of: app) == .active { send(.deactivate(app)) }
        if state(of: app) == .inactive { send(.enterBackground(app)) }
    }

    func lockScreen() {
        sendForegroundAppToBackground()
        guard !deviceState.isLocked else { return }
        changeDevice(.locked(true)) { $0.isLocked = true }
        scheduleIdle()
    }

    func unlockScreen() {
        idleGeneration += 1
        if deviceState.isIdle { changeDevice(.idle(false)) { $0.isIdle = false } }
        guard deviceState.isLocked || !deviceState.unlockedSinceBoot else { return }
        changeDevice(.locked(false)) { state in
            state.isLocked = false
            state.unlockedSinceBoot = true
        }
    }

    func scheduleIdle() {
        idleGeneration += 1
        schedule(at: now + configuration.battery.idleAfterLock, .idle(idleGeneration))
    }
}
