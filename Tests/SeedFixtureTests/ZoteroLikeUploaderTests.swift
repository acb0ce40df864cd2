import BackgroundExecution
import BackgroundTransfers
import Synchronization
import Testing
import TransferTestServer

/// The Zotero-like uploader (app code, Swift 5 mode, only its import changed) against the
/// loopback server through embedded transfers.
@Suite("A Zotero-like background uploader runs unchanged but for its import")
struct ZoteroLikeUploaderTests {
    @Test("the multipart body is uploaded from its file with the session's headers; URLSession.shared works beside it")
    func uploads() async throws {
        let server = try await LoopbackServer.start()
        server.set("/users/1/items/ABCD/file", LoopbackRoute(size: 0))
        server.set("/exists", LoopbackRoute(size: 2))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("zotero-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let transfers = EmbeddedTransfers(
            configuration: .init(app: "org.zotero.ios", container: try TransferContainer(root: root))
        )
        let uploader = withBootstrapLock {
            URLSession.bootstrap(transfers)
            defer { URLSession.bootstrap(nil) }
            return BackgroundUploader(apiVersion: 3, appGroup: "group.org.zotero.ios")
        }
        let file = URL(fileURLWithPath: root).appendingPathComponent("Attachments/paper.pdf")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x25, count: 300_000).write(to: file)
        let upload = BackgroundUpload(
            key: "ABCD",
            fileUrl: file,
            // swift-format-ignore: NeverForceUnwrap
            remoteUrl: URL(string: server.url("/users/1/items/ABCD/file"))!
        )
        let result = Mutex<(BackgroundUpload, Int, Data?)?>(nil)
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        uploader.uploadFinished = { upload, status, data in
            result.withLock { $0 = (upload, status, data) }
            continuation.yield()
        }
        try uploader.upload(upload, filename: "paper.pdf", mimeType: "application/pdf", parameters: ["md5": "x"])
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        let (finished, status, data) = try #require(result.withLock { $0 })
        #expect(finished == upload)
        #expect(status == 200)
        #expect(data.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("received 3") == true)
        let counters = server.counters("/users/1/items/ABCD/file")
        #expect(counters.bytesReceived > 300_000)
        #expect(counters.lastHeaders["zotero-api-version"] == "3")
        #expect(counters.lastHeaders["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)

        let shared = Mutex<Int?>(nil)
        let (checked, checkedContinuation) = AsyncStream<Void>.makeStream()
        // swift-format-ignore: NeverForceUnwrap
        uploader.checkRemoteFile(at: URL(string: server.url("/exists"))!) { code in
            shared.withLock { $0 = code }
            checkedContinuation.yield()
        }
        var checkedIterator = checked.makeAsyncIterator()
        _ = await checkedIterator.next()
        #expect(shared.withLock { $0 } == 200)
        await transfers.shutdown()
        try await server.shutdown()
    }
}
