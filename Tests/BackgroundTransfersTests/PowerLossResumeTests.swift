import BackgroundCore
import BackgroundStore
import Foundation
import Logging
import Testing
import TransferTestServer

@testable import BackgroundTransfers

/// A checkpoint is written without `fsync` (issue 28, item 3): within the boot that wrote it,
/// its bytes are in the page cache and a restart resumes from all of them; after a reboot (a
/// power loss) only the synced ones (``TransferCheckpoint/syncedBytes``) are trusted, and never
/// more than the partial file holds.
@Suite("Checkpoints without fsync: what a restart trusts after kill -9 and after a power loss")
struct PowerLossResumeTests {
    static let app: AppID = "com.example.powerloss"
    static let session = "com.example.powerloss.downloads"

    @Test("held bytes: the same boot trusts the checkpoint, another boot the synced bytes, old rows all")
    func heldBytes() {
        var row = TransferCheckpoint(
            app: Self.app,
            session: Self.session,
            task: 1,
            kind: .download,
            method: "GET",
            url: "http://127.0.0.1:9/a",
            bytesDone: 900
        )
        // A row written before syncedBytes was kept: its bytes were fsynced.
        #expect(BootID.heldBytes(of: row, fileSize: 1_000, boot: "b1") == 900)
        row.syncedBytes = 300
        row.bootID = "b1"
        #expect(BootID.heldBytes(of: row, fileSize: 1_000, boot: "b1") == 900)
        #expect(BootID.heldBytes(of: row, fileSize: 1_000, boot: "b2") == 300)
        #expect(BootID.heldBytes(of: row, fileSize: 1_000, boot: nil) == 300, "an unknown boot is another")
        #expect(BootID.heldBytes(of: row, fileSize: 500, boot: "b1") == 500, "never more than the file holds")
        #expect(BootID.heldBytes(of: row, fileSize: 100, boot: "b2") == 100)
    }

    @Test("a stored row's sync count is kept within its bytes, an overlong boot forgotten")
    func clamped() {
        var row = TransferCheckpoint(
            app: Self.app,
            session: Self.session,
            task: 1,
            kind: .download,
            method: "GET",
            url: "http://127.0.0.1:9/a",
            bytesDone: 10
        )
        row.syncedBytes = 11
        row.bootID = String(repeating: "x", count: TransferCheckpoint.maximumBootIDBytes + 1)
        row.clampCounts()
        #expect(row.syncedBytes == 10 && row.bootID == nil)
        row.syncedBytes = -1
        row.clampCounts()
        #expect(row.syncedBytes == 0)
    }

    /// A running download stored at `held` bytes (the partial file holds them) of which
    /// `synced` were synced in `boot`, restored by a new engine: the range its one request asks
    /// from, and whether the delivered body is the resource.
    func resume(held: Int64, fileBytes: Int64, synced: Int64, boot: String?) async throws -> (Int64?, Bool) {
        let server = try await LoopbackServer.start()
        let route = LoopbackRoute(size: 1 << 20)
        server.set("/body", route)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("powerloss-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let container = try TransferContainer(root: directory + "/Container")
        let store = try BackgroundStore(path: directory + "/store.sqlite")
        let partial = TransferCheckpoint.partialPath(session: Self.session, task: 1)
        let body = route.body()
        try FileManager.default.createDirectory(
            atPath: container.root + "/" + (partial as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        _ = FileManager.default.createFile(
            atPath: container.root + "/" + partial,
            contents: Data(body[..<Int(fileBytes)])
        )
        var row = TransferCheckpoint(
            app: Self.app,
            session: Self.session,
            task: 1,
            kind: .download,
            state: .running,
            method: "GET",
            url: server.url("/body"),
            partialFile: partial,
            bytesDone: held,
            expectedLength: route.size,
            entityTag: route.entityTag
        )
        row.syncedBytes = synced
        row.bootID = boot
        try store.applyTransferChanges(saving: [row], removing: [])
        let engine = EmbeddedTransfers(
            configuration: .init(
                app: Self.app,
                container: container,
                store: store,
                logger: Logger(label: "power-loss") { _ in SwiftLogNoOpLogHandler() }
            )
        )
        let (ended, continuation) = AsyncStream<[UInt8]?>.makeStream()
        _ = engine.attach(TransferSessionOptions(app: Self.app, session: Self.session)) { event in
            guard case .completed(_, let location, _) = event else { return }
            continuation.yield(location.flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) })
            continuation.finish()
        }
        var delivered: [UInt8]?
        for await bytes in ended { delivered = bytes }
        await engine.shutdown()
        let start = server.counters("/body").rangeStarts.last
        try await server.shutdown()
        return (start, delivered == body)
    }

    @Test("after kill -9 (the same boot) a restart resumes from every checkpointed byte")
    func sameBoot() async throws {
        let (start, whole) = try await resume(
            held: 600 << 10,
            fileBytes: 600 << 10,
            synced: 100 << 10,
            boot: BootID.current
        )
        #expect(start == (BootID.current == nil ? 100 << 10 : 600 << 10))
        #expect(whole)
    }

    @Test("after a power loss (another boot) a restart resumes from the synced bytes")
    func anotherBoot() async throws {
        let (start, whole) = try await resume(
            held: 600 << 10,
            fileBytes: 600 << 10,
            synced: 100 << 10,
            boot: "another-boot"
        )
        #expect(start == 100 << 10)
        #expect(whole)
    }

    @Test("a partial file shorter than its checkpoint is resumed from its end, never padded")
    func shortFile() async throws {
        let (start, whole) = try await resume(
            held: 600 << 10,
            fileBytes: 200 << 10,
            synced: 600 << 10,
            boot: BootID.current
        )
        #expect(start == 200 << 10)
        #expect(whole)
    }
}
