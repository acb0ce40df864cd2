import BackgroundCore
import BackgroundExecution
import Foundation

/// The simulator's transfer engine (what `nsurlsessiond` is on a device): it keeps the core's
/// ``TransferQueue`` (discretionary waits, networks, `earliestBeginDate`, priority, force quit,
/// the relaunch delay), moves bytes over the ``VirtualNetwork`` on virtual time, scripts its
/// failures, and delivers each transfer's events to the app, relaunching it in the background
/// with `handleEventsForBackgroundURLSession` when it is suspended or gone.
///
/// Everything happens on the main actor, in the simulator's order, and every list it walks is
/// sorted by key: the same seed gives the same run.
@MainActor
final class TransferSimulation {
    unowned let simulator: Simulator
    var network = VirtualNetwork()
    var queue: TransferQueue
    var transfers = TransferTable()
    /// Completed transfers whose events the app has not had, in the order they completed.
    var undelivered: [TransferKey] = []
    /// The services apps' sessions talk to, one per app for the life of the simulator.
    var services: [AppID: SimulatedTransferService] = [:]
    /// Sessions attached in a process: their event sinks, with the process's serial.
    var links: [SessionKey: SessionLink] = [:]
    /// Which apps are woken for their sessions' events, or wait for a wake: the core's rule
    /// (``TransferEventWakes``), carried out here on the simulator's clock.
    var wakes = TransferEventWakes()
    /// The deadline of the wakes a driver job is scheduled for.
    var wakesArmedAt: Instant?
    /// The assertion that keeps a woken app running until it calls the completion handlers.
    var eventAssertions: [AppID: AssertionID] = [:]
    /// Keys cancelled by a force quit: none may ever complete.
    var forceQuitCancelled: Set<TransferKey> = []
    var timerGeneration: UInt64 = 0
    var armedAt: Instant?
    /// When the queue's next timed condition clears (`earliestBeginDate`, the relaunch delay).
    var queueWake: Instant?
    /// When bytes were last counted.
    var countedAt: Instant = .zero
    /// Each session's options as the app last attached it (`sessionSendsLaunchEvents`), kept
    /// after its process ends, as the system keeps a session's configuration.
    var sessionOptions: [SessionKey: TransferSessionOptions] = [:]
    /// Partial files kept for resume data, by app and path.
    var keptPartials: [PartialName: KeptPartial] = [:]
    /// How often each resource changed (`.changesAt`): part of its `ETag`.
    var revisions: [String: Int] = [:]
    /// The files of the transfers: in memory, or on disk where app code may open them.
    var files = TransferFiles()

    /// Retries: 1 s, doubling, at most 60 s and 12 attempts (the embedded engine's `TransferPolicy`).
    static let firstBackoff: Duration = .seconds(1)
    static let maximumBackoff: Duration = .seconds(60)
    static let maximumAttempts = 12

    struct SessionKey: Hashable, Comparable {
        var app: AppID
        var session: String
        static func < (lhs: SessionKey, rhs: SessionKey) -> Bool { (lhs.app, lhs.session) < (rhs.app, rhs.session) }
    }

    struct SessionLink {
        var serial: Int
        var events: @Sendable (TransferEvent) -> Void
    }

    init(simulator: Simulator) {
        self.simulator = simulator
        let (conditions, network) = Self.transferConditions(simulator.deviceState)
        self.queue = TransferQueue(device: conditions)
        queue.setDevice(conditions, network: network)
    }

    deinit {
        files.removeDirectory()
    }

    /// What the transfer queue sees of the device: a device that is off has no network.
    static func transferConditions(_ state: DeviceState) -> (DeviceConditions, TransferNetwork) {
        var conditions = state.conditions
        if !state.isOn { conditions.network = .none }
        return (conditions, TransferNetwork(network: conditions.network, isExpensive: state.isMetered))
    }

    func service(for app: AppID) -> SimulatedTransferService {
        if let existing = services[app] { return existing }
        let service = SimulatedTransferService(app: app, inbox: simulator.inbox)
        services[app] = service
        return service
    }

    func record(_ activity: TransferActivity) {
        simulator.record(.transfer(activity))
    }

    // MARK: The app's calls

    func attach(_ options: TransferSessionOptions, events: @escaping @Sendable (TransferEvent) -> Void) {
        guard let process = simulator.currentProcess ?? simulator.processes[options.app], process.isAlive else {
            return
        }
        let session = SessionKey(app: options.app, session: options.session)
        links[session] = SessionLink(serial: process.serial, events: events)
        sessionOptions[session] = options
        removeExpiredPartials()
        deliverPending(options.app)
    }

    /// Gives a session's release to the app's running process, which calls it when it ends
    /// (``AppProcess``); calls it now when the app has no running process.
    func releaseWhenProcessEnds(_ app: AppID, _ release: @escaping @Sendable () -> Void) {
        let running = simulator.currentProcess.flatMap { $0.app == app ? $0 : nil } ?? simulator.processes[app]
        guard let process = running, process.isAlive else { return release() }
        process.sessionReleases.append(release)
    }

    func submit(_ order: TransferOrder) {
        var checkpoint = order.transfer
        let key = TransferKey(app: checkpoint.app, session: checkpoint.session, task: checkpoint.task)
        guard transfers[key] == nil else { return }
        checkpoint.state = .waiting
        var from: Int64 = 0
        var refusal: TransferOutcome?
        if let resumeData = order.resumeData {
            do {
                (checkpoint, from) = try resuming(checkpoint, from: resumeData)
            } catch {
                refusal = TransferOutcome(errorCode: -1, errorMessage: error.description)
            }
        }
        var resource = network.resource(at: checkpoint.url)
        if checkpoint.kind == .upload {
            // An upload sends its file: its size is the file's, and a file that is not there fails.
            if let size = order.uploadPath.flatMap(files.uploadSize(at:)) {
                resource.size = size
            } else {
                refusal = TransferOutcome(
                    errorCode: -1100,
                    errorMessage: "the file to upload is not a regular file that can be read"
                )
            }
        }
        var transfer = SimulatedTransfer(checkpoint: checkpoint, resource: resource)
        transfer.resumeAt(min(from, transfer.size))
        transfers[key] = transfer
        services[key.app]?.remember(checkpoint)
        record(.queued(key, checkpoint.kind, size: transfer.size))
        if let refusal {
            finish(key, outcome: refusal)
            return
        }
        // A `Date` from app code is a distance from the real clock's now (as for task requests).
        let begin = checkpoint.earliestBeginUnixSeconds.map {
            SystemTime.instant(for: Date(timeIntervalSince1970: $0), now: simulator.now)
        }
        queue.submit(key, checkpoint.requirements ?? TransferRequirements(), earliestBegin: begin, at: simulator.now)
        reschedule()
        if let transfer = transfers[key], transfer.phase == .waiting,
            let why = queue.eligibility(of: key, at: simulator.now)
        {
            record(.waiting(key, why.unmet))
        }
    }

    func cancel(_ key: TransferKey) {
        guard let transfer = transfers[key], transfer.phase != .completed else { return }
        count()
        queue.remove(key)
        finish(key, outcome: TransferOutcome(errorCode: -999, errorMessage: "cancelled"))
        reschedule()
    }

    func delivered(_ key: TransferKey) {
        guard transfers[key]?.phase == .completed else { return }
        transfers[key] = nil
        undelivered.removeAll { $0 == key }
        services[key.app]?.forget(key)
        files.delivered(key)
    }

    func detach(app: AppID, session: String, cancelling: Bool) {
        links[SessionKey(app: app, session: session)] = nil
        guard cancelling else { return }
        for key in transfers.keys where key.app == app && key.session == session { cancel(key) }
    }

    // MARK: The user and the device

    /// The user force-quit the app: its transfers end with -999 and reason 0; nothing relaunches it.
    func forceQuit(_ app: AppID) {
        processEnded(app)  // the process goes: the cancellations wait for the user to open the app
        count()
        for key in queue.forceQuit(app) {
            forceQuitCancelled.insert(key)
            finish(
                key,
                outcome: TransferOutcome(
                    errorCode: -999,
                    errorMessage: "cancelled: the user force-quit the app",
                    cancellationReason: TransferCancellationReason.userForceQuitApplication.rawValue
                )
            )
        }
        wakes.forceQuit(app)
        eventAssertions[app] = nil
        reschedule()
    }

    /// The user opened the app: its transfers may run again, its relaunch delay starts over.
    func opened(_ app: AppID) {
        queue.opened(app)
        reschedule()
    }

    /// The device's network or power changed, or it switched off or on: nothing moves while it
    /// is off; once it is on again, apps with events waiting are relaunched for them.
    func deviceChanged() {
        count()
        let (conditions, network) = Self.transferConditions(simulator.deviceState)
        queue.setDevice(conditions, network: network)
        reschedule()
        guard simulator.deviceState.isOn else { return }
        for app in Set(undelivered.map(\.app)).sorted() { deliverPending(app) }
    }

    /// The process ended: its sessions' links go with it.
    func processEnded(_ app: AppID) {
        for key in links.keys.sorted() where key.app == app { links[key] = nil }
        // Events handed to the process but not yet heard by it are delivered to the next one.
        for key in undelivered where key.app == app { transfers[key]?.deliveredToApp = false }
        eventAssertions[app] = nil
        wakes.processEnded(app, relaunchAt: queue.relaunchTime(of: app, readyAt: simulator.now))
        armWakes()
    }
}
