import BackgroundCore
import BackgroundStore
import Foundation
import Logging
import Synchronization
import TransferTestServer

@testable import BackgroundTransfers

/// An embedded transfer service, its container and store in a fresh directory, and the loopback
/// server, for one test. Events are recorded; `completion(of:)` waits for a task's end.
final class TransferHarness: Sendable {
    static let app = AppID("com.example.transfers")
    static let session = "com.example.transfers.session"

    let server: LoopbackServer
    let directory: String
    let container: TransferContainer
    let store: BackgroundStore
    let transfers: EmbeddedTransfers
    let events = Mutex<[TransferEvent]>([])
    private let waiters = Mutex<[Int: CheckedContinuation<Completion, Never>]>([:])
    private let finished = Mutex<[Int: Completion]>([:])

    /// A task's end: its checkpoint, the body's file (if any) read while it existed, resume data.
    struct Completion: Sendable {
        var transfer: TransferCheckpoint
        var body: [UInt8]?
        var resumeData: [UInt8]?
        var outcome: TransferOutcome { transfer.outcome ?? TransferOutcome() }
        /// The body's SHA-256 (compared instead of the bytes, so a failure prints one line).
        var bodyDigest: String? { body.map(TransferHarness.sha256) }
        /// The values of a response's header field, by its name in any case, in order.
        func field(_ name: String) -> [String] {
            outcome.responseHeaders.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }
    }

    /// A test policy: fast backoff, small checkpoints.
    static var fastPolicy: TransferPolicy {
        var policy = TransferPolicy()
        policy.initialBackoff = .milliseconds(5)
        policy.maximumBackoff = .milliseconds(40)
        policy.maximumAttempts = 6
        policy.checkpointBytes = 64 << 10
        return policy
    }

    init(
        policy: TransferPolicy = TransferHarness.fastPolicy,
        server: LoopbackServer? = nil,
        device: DeviceConditions = DeviceConditions(powerSource: .externalPower, network: .wifi),
        logger: Logger = Logger(label: "background-transfers"),
        reach: RedirectReach = .system
    ) async throws {
        if let server {
            self.server = server
        } else {
            self.server = try await LoopbackServer.start()
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("transfers-\(UUID().uuidString)").path
        container = try TransferContainer(root: directory + "/Container")
        store = try BackgroundStore(path: directory + "/store.sqlite")
        var configuration = EmbeddedTransfers.Configuration(
            app: Self.app,
            container: container,
            store: store,
            policy: policy,
            logger: logger,
            device: device
        )
        configuration.reach = reach
        transfers = EmbeddedTransfers(configuration: configuration)
        _ = attach()
    }

    /// Attaches (or reattaches) the session with this harness's recorder.
    /// The timeouts are long: under a loaded test pool (2 cores, hundreds of tests) a transfer's
    /// task may wait seconds for a thread, and a timeout would turn that into a retry.
    func attach(connectionsPerHost: Int = 6, requestTimeout: Double = 60) -> [TransferCheckpoint] {
        transfers.attach(
            TransferSessionOptions(
                app: Self.app,
                session: Self.session,
                maximumConnectionsPerHost: connectionsPerHost,
                requestTimeoutSeconds: requestTimeout,
                resourceTimeoutSeconds: 600
            )
        ) { [weak self] event in self?.record(event) }
    }

    private func record(_ event: TransferEvent) {
        events.withLock { $0.append(event) }
        guard case .completed(let transfer, let location, let resumeData) = event else { return }
        let body = location.flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) }
        let completion = Completion(transfer: transfer, body: body, resumeData: resumeData)
        transfers.delivered(app: transfer.app, session: transfer.session, task: transfer.task)
        let waiter = waiters.withLock { waiters in
            let waiter = waiters.removeValue(forKey: transfer.task)
            if waiter == nil { finished.withLock { $0[transfer.task] = completion } }
            return waiter
        }
        waiter?.resume(returning: completion)
    }

    /// Submits a download of `path` and returns its task identifier.
    func download(
        _ path: String,
        url: String? = nil,
        sha256: String? = nil,
        resumeData: [UInt8]? = nil,
        requirements: TransferRequirements? = nil,
        earliestBegin: Date? = nil
    ) -> Int {
        let task = transfers.reserveTaskIdentifier(app: Self.app, session: Self.session)
        let transfer = TransferCheckpoint(
            app: Self.app,
            session: Self.session,
            task: task,
            kind: .download,
            method: "GET",
            url: url ?? server.url(path),
            expectedSHA256: sha256,
            earliestBeginUnixSeconds: earliestBegin?.timeIntervalSince1970,
            requirements: requirements
        )
        transfers.submit(TransferOrder(transfer: transfer, resumeData: resumeData))
        return task
    }

    /// Submits an upload of a file (an absolute path) to `path`.
    func upload(_ file: String, to path: String, method: String = "PUT") -> Int {
        let task = transfers.reserveTaskIdentifier(app: Self.app, session: Self.session)
        let transfer = TransferCheckpoint(
            app: Self.app,
            session: Self.session,
            task: task,
            kind: .upload,
            method: method,
            url: server.url(path),
            headers: [TransferHeader(name: "Content-Type", value: "application/octet-stream")]
        )
        transfers.submit(TransferOrder(transfer: transfer, uploadPath: file))
        return task
    }

    /// Waits for a task's completion.
    func completion(of task: Int) async -> Completion {
        await withCheckedContinuation { continuation in
            let ready: Completion? = waiters.withLock { waiters in
                if let done = finished.withLock({ $0.removeValue(forKey: task) }) { return done }
                waiters[task] = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Writes a file of `size` pattern bytes into the container and returns its absolute path.
    func makeFile(_ relative: String, size: Int) throws -> String {
        let path = container.root + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    func stop() async {
        await transfers.shutdown()
        try? await server.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The SHA-256 of bytes, in hexadecimal.
    static func sha256(_ bytes: [UInt8]) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest()
    }
}
