import BackgroundCore
public import BackgroundDevice
import Dispatch
import Logging
import Synchronization

/// The device as the daemon sees it: the probes read when a watcher wakes, the developer's
/// overrides, and what the core was last told.
///
/// Every condition change becomes one ``Event/setDevice(_:)`` (journaled, so the timeline shows
/// it); memory pressure becomes ``Event/memoryPressure(_:)``, one reclaim step per reading
/// while the pressure lasts (re-read every ``Settings/memoryRecheck`` until it is normal again:
/// the PSI trigger wakes the daemon, nothing polls while memory is plentiful). Each default
/// reason and probe problem is logged once.
public final class DaemonDevice: Sendable {
    /// How the daemon reads the device.
    public struct Settings: Sendable {
        /// Where the conditions come from; nil: the configured conditions, source `default`.
        public var sources: DeviceSources?
        /// Whether `bgctl device set` and `clear` are accepted (`backgroundd --developer-mode`).
        public var developerMode: Bool
        /// How often memory is read again while under pressure (the PSI trigger only says when
        /// pressure starts): 2 s, the trigger's window.
        public var memoryRecheck: Duration

        /// Settings; by default no probes and no developer mode.
        public init(sources: DeviceSources? = nil, developerMode: Bool = false, memoryRecheck: Duration = .seconds(2)) {
            self.sources = sources
            self.developerMode = developerMode
            self.memoryRecheck = memoryRecheck
        }
    }

    struct State {
        var overrides = DeviceOverrides.none
        var reading: DeviceReading
        var reported = ReportedReasons()
        var told: DeviceConditions
        var pressure = BackgroundCore.MemoryPressure.normal
        var rechecking = false
        var watching = false
    }

    /// The reason the conditions have when the daemon reads no probes.
    public static let unprobedReason = "configured: the daemon reads no probes"

    let settings: Settings
    let configured: DeviceConditions
    let memoryPolicy: MemoryPolicy
    let logger: Logger
    let state: Mutex<State>

    init(settings: Settings, configured: DeviceConditions, memoryPolicy: MemoryPolicy, logger: Logger) {
        self.settings = settings
        self.configured = configured
        self.memoryPolicy = memoryPolicy
        self.logger = logger
        let reading =
            settings.sources?.reading(overrides: .none)
            ?? DeviceReading(configured: configured, reason: Self.unprobedReason)
        var initial = State(reading: reading, told: reading.conditions)
        for problem in settings.sources?.problems ?? [] { logger.notice("device: \(problem)") }
        for line in initial.reported.unsaid(in: reading) {
            logger.notice("device: \(line) (the documented default is used)")
        }
        state = Mutex(initial)
    }

    /// The conditions the core starts with.
    var conditions: DeviceConditions { state.withLock { $0.told } }

    /// The last reading, with sources.
    public var reading: DeviceReading { state.withLock { $0.reading } }

    /// The memory pressure level of the last reading.
    var memoryLevel: BackgroundCore.MemoryPressure { state.withLock { $0.pressure } }

    /// The level `pressure` stands for under the policy's thresholds.
    func level(of pressure: Probed<BackgroundDevice.MemoryPressure>) -> BackgroundCore.MemoryPressure {
        guard case .read(let reading, _) = pressure else { return .normal }
        return memoryPolicy.level(
            someAverage10: reading.stall.some.avg10,
            fullAverage10: reading.stall.full?.avg10,
            availableFraction: reading.memory?.availableFraction
        )
    }

    /// Reads the probes again; a change of conditions is told to the core. `always` tells it even
    /// when nothing changed (an override, so the journal records it).
    /// The daemon's transfers hear the conditions and the network's metered and constrained
    /// flags when either changes.
    public func refresh(_ engine: DaemonEngine, always: Bool = false) {
        let transfersHear = state.withLock { state -> DeviceReading? in
            let reading =
                settings.sources?.reading(overrides: state.overrides)
                ?? DeviceReading(configured: configured, reason: Self.unprobedReason, overrides: state.overrides)
            let previous = state.reading.transferNetwork
            state.reading = reading
            for line in state.reported.unsaid(in: reading) {
                logger.notice("device: \(line) (the documented default is used)")
            }
            let networkChanged = reading.transferNetwork != previous
            guard always || reading.conditions != state.told || networkChanged else { return nil }
            if always || reading.conditions != state.told {
                state.told = reading.conditions
                engine.deliver(.setDevice(reading.conditions))
            }
            return reading
        }
        if let reading = transfersHear {
            engine.transfers?.setDevice(reading.conditions, network: reading.transferNetwork)
        }
    }

    /// Reads memory pressure again and, when it is not normal, takes one reclaim step and reads
    /// again after ``Settings/memoryRecheck``.
    public func memoryChanged(_ engine: DaemonEngine) {
        let schedule = state.withLock { state -> Bool in
            let pressure = settings.sources?.memory.pressure() ?? state.reading.memory
            state.reading.memory = pressure
            let level = level(of: pressure)
            let previous = state.pressure
            state.pressure = level
            if level != previous { logger.notice("device: memory pressure \(level) (\(Self.describe(pressure)))") }
            if level != .normal || previous != .normal { engine.deliver(.memoryPressure(level)) }
            guard level != .normal, !state.rechecking else { return false }
            state.rechecking = true
            return true
        }
        if schedule { scheduleRecheck(engine) }
    }

    private func scheduleRecheck(_ engine: DaemonEngine) {
        let delay = settings.memoryRecheck
        let nanoseconds =
            Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self, weak engine] in
            guard let self else { return }
            self.state.withLock { $0.rechecking = false }
            guard let engine, self.state.withLock({ $0.watching }) else { return }
            self.memoryChanged(engine)
        }
    }

    static func describe(_ pressure: Probed<BackgroundDevice.MemoryPressure>) -> String {
        switch pressure {
        case .read(let reading, let from):
            var text = "some avg10=\(PressureStall.twoDecimals(reading.stall.some.avg10))%"
            if let full = reading.stall.full { text += " full avg10=\(PressureStall.twoDecimals(full.avg10))%" }
            if let info = reading.memory { text += ", \(info.availableBytes / 1_048_576) MiB available" }
            return text + " from \(from)"
        case .unavailable(let reason):
            return reason
        }
    }

    /// Starts the watchers: each wake re-reads the probes. A watcher that fails is logged once.
    func start(_ engine: DaemonEngine) {
        guard let sources = settings.sources else { return }
        state.withLock { $0.watching = true }
        let onCondition: @Sendable (WatchEvent) -> Void = { [weak self, weak engine] event in
            guard let self, let engine else { return }
            switch event {
            case .changed: self.refresh(engine)
            case .failed(let error): self.logger.error("device: a watcher stopped: \(error)")
            }
        }
        for watcher in sources.conditionWatchers {
            do {
                try watcher.start(onCondition)
            } catch {
                logger.notice("device: a watcher could not start (its condition is read when another wakes): \(error)")
            }
        }
        if let memory = sources.memoryWatcher {
            do {
                try memory.start { [weak self, weak engine] event in
                    guard let self, let engine else { return }
                    switch event {
                    case .changed: self.memoryChanged(engine)
                    case .failed(let error): self.logger.error("device: the memory pressure watcher stopped: \(error)")
                    }
                }
            } catch {
                logger.notice("device: memory pressure is not watched (read once, at start): \(error)")
            }
        } else {
            logger.notice("device: memory pressure is not watched: \(Self.describe(sources.memory.pressure()))")
        }
        refresh(engine)
        memoryChanged(engine)
    }

    /// Stops the watchers.
    func stop() {
        state.withLock { $0.watching = false }
        guard let sources = settings.sources else { return }
        for watcher in sources.conditionWatchers { watcher.stop() }
        sources.memoryWatcher?.stop()
    }

    /// Applies `bgctl device set` arguments (nil: clear every override).
    func override(_ arguments: [String]?, _ engine: DaemonEngine) throws(DeviceCommandError) -> DeviceOverrides {
        guard settings.developerMode else { throw .notDeveloperMode }
        let overrides = try state.withLock { state throws(DeviceCommandError) -> DeviceOverrides in
            guard let arguments else {
                state.overrides = .none
                return state.overrides
            }
            do throws(DeviceOverrideError) {
                state.overrides = try state.overrides.applying(arguments)
            } catch {
                throw .invalid(error)
            }
            return state.overrides
        }
        logger.notice(
            "device: overrides \(overrides.isEmpty ? "cleared: every condition from its probe" : overrides.description) (bgctl device)"
        )
        refresh(engine, always: true)
        return overrides
    }
}

/// Why `bgctl device set` or `clear` was refused.
enum DeviceCommandError: Error {
    /// The daemon was not started with `--developer-mode`.
    case notDeveloperMode
    /// The arguments do not parse.
    case invalid(DeviceOverrideError)
}
