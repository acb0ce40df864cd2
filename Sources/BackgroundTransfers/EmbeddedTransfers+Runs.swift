import AsyncHTTPClient
import BackgroundCore
import Foundation
import NIOCore
import Synchronization

/// What the service holds, under its lock.
struct ServiceState: Sendable {
    var sessions: [String: SessionState] = [:]
    var isShutDown = false
    /// The core's rules: which transfers may run now.
    var queue: TransferQueue
    /// The wait for the queue's next timed condition (an `earliestBeginDate`, a relaunch delay).
    var wake: Task<Void, Never>?
    /// When an attach last looked for unused partial files (``EmbeddedTransfers/removeUnusedPartialFiles()``).
    var partialFilesSweptAt: Instant?
}

/// One attached session's transfers.
struct SessionState: Sendable {
    var options: TransferSessionOptions
    var events: (@Sendable (TransferEvent) -> Void)?
    /// Every transfer not yet delivered, latest checkpoint.
    var transfers: [Int: TransferCheckpoint] = [:]
    var runs: [Int: Task<Void, Never>] = [:]
    var cancelled: Set<Int> = []
    var resumeWanted: [Int: @Sendable ([UInt8]?) -> Void] = [:]
    /// Downloads whose partial file is named by resume data handed out: kept after delivery.
    var keepsPartial: Set<Int> = []
    /// Runs stopped because their conditions no longer hold: they wait again, not end.
    var pausing: Set<Int> = []
    /// Why the system cancelled a transfer (a force quit), for its -999.
    var cancellationReasons: [Int: TransferCancellationReason] = [:]
    var nextTask = 1
}

extension EmbeddedTransfers {
    /// Checks an order and fills in the engine's part of the checkpoint (files, relative paths).
    func prepare(_ transfer: inout TransferCheckpoint, order: TransferOrder) throws(TransferFailure) {
        let container = configuration.container
        if let bytes = order.resumeData {
            let data: TransferResumeData
            do {
                data = try TransferResumeData.decode(bytes, app: configuration.app, container: container)
            } catch {
                throw .permanent(TransferFailure.unknownCode, error.description)
            }
            transfer.url = data.url
            transfer.method = "GET"
            transfer.partialFile = data.partialFile
            transfer.bytesDone = data.bytes
            transfer.expectedLength = data.expectedLength
            transfer.entityTag = data.entityTag
            transfer.lastModified = data.lastModified
        }
        guard TransferURL.isAllowed(transfer.url) else {
            throw .permanent(TransferFailure.unsupportedURLCode, "only http and https URLs can be transferred")
        }
        switch transfer.kind {
        case .download:
            if transfer.partialFile == nil {
                transfer.partialFile = Self.partialPath(session: transfer.session, task: transfer.task)
            }
        case .upload:
            guard let path = order.uploadPath else {
                throw .permanent(TransferFailure.fileDoesNotExistCode, "an upload needs a file")
            }
            do {
                let relative = try container.relativePath(of: path)
                let descriptor = try container.openForReading(relative)
                close(descriptor)
                transfer.bodyFile = relative
            } catch {
                throw .permanent(TransferFailure.fileDoesNotExistCode, error.description)
            }
        }
    }

    /// `Transfers/<session>/<task>.partial`, the session's identifier escaped to one plain name.
    static func partialPath(session: String, task: Int) -> String {
        TransferCheckpoint.partialPath(session: session, task: task)
    }

    func start(_ transfer: TransferCheckpoint) {
        state.withLock { state in
            guard !state.isShutDown, state.sessions[transfer.session] != nil else { return }
            state.sessions[transfer.session]?.runs[transfer.task] = Task { await self.execute(transfer) }
        }
    }

    private func execute(_ transfer: TransferCheckpoint) async {
        guard let options = state.withLock({ $0.sessions[transfer.session]?.options }) else { return }
        var waited = transfer
        let session = transfer.session
        let run = TransferRun(
            client: Self.client(for: options),
            policy: configuration.policy,
            container: configuration.container,
            options: options,
            reporter: TransferRun.Reporter(
                event: { [weak self] event in self?.emit(event, session: session) },
                checkpoint: { [weak self] checkpoint in self?.save(checkpoint) }
            ),
            reach: configuration.reach,
            logger: configuration.logger
        )
        if Task.isCancelled {
            waited.state = .completed
            waited.outcome = TransferOutcome(errorCode: TransferFailure.cancelledCode, errorMessage: "cancelled")
        } else {
            waited = await run.run(transfer)
        }
        complete(waited)
    }

    func complete(_ ended: TransferCheckpoint) {
        var finished = ended
        let key = TransferKey(app: finished.app, session: finished.session, task: finished.task)
        let (shutDown, pausing, wanted, cancelled, reason) = state.withLock { state in
            let session = finished.session
            state.sessions[session]?.runs[finished.task] = nil
            let paused = state.sessions[session]?.pausing.remove(finished.task) != nil
            let wanted = state.sessions[session]?.resumeWanted.removeValue(forKey: finished.task)
            let cancelled = state.sessions[session]?.cancelled.remove(finished.task) != nil
            let reason = state.sessions[session]?.cancellationReasons.removeValue(forKey: finished.task)
            // A paused run that finished anyway (its last bytes beat the pause) is complete.
            let pausing = paused && !cancelled && finished.outcome?.errorCode == TransferFailure.cancelledCode
            if !state.isShutDown && !pausing { state.queue.remove(key) }
            return (state.isShutDown, pausing, wanted, cancelled, reason)
        }
        if shutDown || pausing {
            // A clean stop or a pause is not the transfer's end: it goes on from this checkpoint
            // at the next attach, or when its conditions hold again.
            var paused = finished
            paused.state = shutDown ? .running : .waiting
            paused.outcome = nil
            save(paused)
            state.withLock { $0.sessions[paused.session]?.transfers[paused.task] = paused }
            if pausing { reschedule() }
            return
        }
        if let reason, finished.outcome?.errorCode == TransferFailure.cancelledCode {
            finished.outcome?.cancellationReason = reason.rawValue
            finished.outcome?.errorMessage = "cancelled: the user force-quit the app"
        }
        let failed = finished.outcome?.errorCode != nil
        let offersResume = failed && (!cancelled || wanted != nil) && finished.bytesDone > 0
        let resumeData = offersResume ? TransferResumeData(finished)?.encoded() : nil
        wanted?(resumeData)
        state.withLock { state in
            state.sessions[finished.session]?.transfers[finished.task] = finished
            if resumeData != nil { state.sessions[finished.session]?.keepsPartial.insert(finished.task) }
        }
        save(finished)
        // Durable before the app hears it: a delivered body is never fetched again.
        checkpoints?.flush()
        deliverCompletion(finished, resumeData: resumeData)
        reschedule()
    }

    /// A transfer ended without a run: completed with an error.
    static func ended(_ transfer: TransferCheckpoint, code: Int, message: String) -> TransferCheckpoint {
        var ended = transfer
        ended.state = .completed
        ended.outcome = TransferOutcome(errorCode: code, errorMessage: message)
        return ended
    }

    func deliverCompletion(_ finished: TransferCheckpoint, resumeData: [UInt8]?) {
        let location = finished.outcome?.bodyFile.flatMap { try? configuration.container.absolutePath(of: $0) }
        emit(.completed(finished, location: location, resumeData: resumeData), session: finished.session)
    }

    func emit(_ event: TransferEvent, session: String) {
        let sink = state.withLock { $0.sessions[session]?.events }
        sink?(event)
    }

    /// Writes a checkpoint at the next flush (``CheckpointWriter``).
    func save(_ transfer: TransferCheckpoint) {
        checkpoints?.save(transfer)
    }

    func storedTransfers(of session: String) -> [TransferCheckpoint] {
        guard let store = configuration.store else { return [] }
        checkpoints?.flush()
        do {
            // The session's rows only: a restart attaches every session, and reading the app's
            // every row at each made restoring cost rows × sessions (issue 25, finding 4).
            return try store.transfers(of: configuration.app, session: session)
        } catch {
            configuration.logger.error("cannot read the stored transfers of \(session): \(error)")
            return []
        }
    }

    /// The process's HTTP clients, one per connection limit and request timeout, kept for the
    /// process's life (as `HTTPClient.shared` is): a client must be shut down before it is
    /// released, and transfers outlive any one session object.
    private static let clients = Mutex<[ClientKey: HTTPClient]>([:])

    private struct ClientKey: Hashable {
        var connectionsPerHost: Int
        var requestTimeoutMilliseconds: Int64
    }

    static func client(for options: TransferSessionOptions) -> HTTPClient {
        let timeout = Int64(max(1, min(options.requestTimeoutSeconds, 86_400)) * 1000)
        let key = ClientKey(
            connectionsPerHost: max(1, options.maximumConnectionsPerHost),
            requestTimeoutMilliseconds: timeout
        )
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration(
                // Redirects are followed by the run, one at a time under the reach rule
                // (`TransferRun.send`): the client could not be asked before it connected.
                redirectConfiguration: .disallow,
                timeout: .init(connect: .milliseconds(timeout), read: .milliseconds(timeout)),
                connectionPool: .init(
                    idleTimeout: .seconds(60),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: key.connectionsPerHost
                )
            )
            configuration.httpVersion = .http1Only
            configuration.decompression = .disabled
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}
