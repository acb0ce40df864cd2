import BackgroundExecution
import BackgroundTransfers
import Foundation
import Synchronization
import Testing
import TransferTestServer

@Suite("A Swift 6 download delegate runs unchanged but for its import")
struct BackgroundDownloadManagerTests {
    @Test("downloads are moved out of the temporary file while it exists; a 404 is delivered with its status")
    func downloads() async throws {
        let server = try await LoopbackServer.start()
        let book = LoopbackRoute(size: 120_000)
        server.set("/book.epub", book)
        server.set("/manifest", LoopbackRoute(size: 42))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("downloads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let documents = root.appendingPathComponent("Container/Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        let transfers = EmbeddedTransfers(
            configuration: .init(
                app: "com.example.reader",
                container: try TransferContainer(root: root.appendingPathComponent("Container").path)
            )
        )
        let manager = withBootstrapLock {
            URLSession.bootstrap(transfers)
            defer { URLSession.bootstrap(nil) }
            return BackgroundDownloadManager(identifier: "com.example.reader.downloads", documents: documents)
        }
        let (stream, continuation) = AsyncStream<[BackgroundDownloadManager.Finished]>.makeStream()
        manager.onAllEventsDelivered = { continuation.yield($0) }
        let handlerCalled = Mutex(false)
        manager.addCompletionHandler(identifier: "com.example.reader.downloads") {
            handlerCalled.withLock { $0 = true }
        }
        // swift-format-ignore: NeverForceUnwrap
        #expect(try await manager.fetchManifest(from: URL(string: server.url("/manifest"))!) == 42)
        // swift-format-ignore: NeverForceUnwrap
        manager.startDownload(from: URL(string: server.url("/book.epub"))!, description: "book.epub")
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.count == 1 && first[0].statusCode == 200)
        let saved = try #require(first[0].savedTo)
        #expect(try Data(contentsOf: saved) == Data(book.body()))
        // swift-format-ignore: NeverForceUnwrap
        manager.startDownload(from: URL(string: server.url("/gone"))!, description: "gone")
        let second = try #require(await iterator.next())
        #expect(second.last?.statusCode == 404 && second.last?.failed == false && second.last?.savedTo == nil)
        await transfers.shutdown()
        try await server.shutdown()
    }
}
