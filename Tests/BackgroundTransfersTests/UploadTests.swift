import BackgroundCore
import BackgroundTransfers
import Testing
import TransferTestServer

@Suite("Uploads")
struct UploadTests {
    @Test("an upload streams its file and the response body is kept")
    func uploadFromFile() async throws {
        let harness = try await TransferHarness()
        harness.server.set("/upload", LoopbackRoute(size: 0))
        let file = try harness.makeFile("Documents/report.bin", size: 700_000)
        let done = await harness.completion(of: harness.upload(file, to: "/upload"))
        #expect(done.outcome.statusCode == 200, "\(done.outcome)")
        #expect(done.outcome.responseBody == Array("received 700000".utf8))
        let counters = harness.server.counters("/upload")
        #expect(counters.bytesReceived == 700_000)
        #expect(counters.lastUpload.prefix(16) == (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }[...])
        let sent = harness.events.withLock { $0 }.compactMap { event -> Int64? in
            if case .sentData(_, _, let total, let expected) = event, expected == 700_000 { return total }
            return nil
        }
        #expect(sent.last == 700_000)
        await harness.stop()
    }

    @Test("an upload answered with 5xx is sent again from its first byte")
    func uploadRetried() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 0)
        route.failuresBeforeSuccess = 2
        harness.server.set("/upload", route)
        let file = try harness.makeFile("up.bin", size: 50_000)
        let done = await harness.completion(of: harness.upload(file, to: "/upload", method: "POST"))
        #expect(done.outcome.statusCode == 200, "\(done.outcome)")
        #expect(harness.server.counters("/upload").requests == 3)
        #expect(harness.server.counters("/upload").bytesReceived == 150_000)
        await harness.stop()
    }
}
