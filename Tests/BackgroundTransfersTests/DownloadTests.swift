import BackgroundCore
import BackgroundTransfers
import Testing
import TransferTestServer

/// Downloads against the loopback server: resume with Range and If-Range, restarts, retries,
/// HTTP errors delivered as Apple does, redirects, checksums.
@Suite("Downloads")
struct DownloadTests {
    @Test("a download delivers the whole body, checkpointed, and nothing is sent twice")
    func plainDownload() async throws {
        let harness = try await TransferHarness()
        let route = LoopbackRoute(size: 300_000)
        harness.server.set("/file", route)
        let task = harness.download("/file", sha256: TransferHarness.sha256(route.body()))
        let done = await harness.completion(of: task)
        #expect(done.outcome.statusCode == 200, "\(done.outcome)")
        #expect(done.outcome.errorCode == nil)
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.server.counters("/file").bytesSent == 300_000)
        let progress = harness.events.withLock { $0 }.compactMap { event -> Int64? in
            if case .wroteData(_, _, let total, _) = event { return total }
            return nil
        }
        #expect(progress.last == 300_000)
        #expect(progress == progress.sorted())
        await harness.stop()
    }

    @Test("a connection dropped mid-body resumes with Range and If-Range from the bytes held")
    func resumeAfterDrop() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 400_000)
        route.dropAfterBytes = 150_000
        harness.server.set("/file", route)
        let task = harness.download("/file")
        let done = await harness.completion(of: task)
        #expect(done.outcome.errorCode == nil)
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        let counters = harness.server.counters("/file")
        #expect(counters.requests == 2)
        // The server counts bytes as it hands them to its socket; those still in flight when the
        // connection dropped never reached the file. The resume asks for exactly the first byte
        // not held, so the only bytes sent twice are those lost in flight.
        let resumedAt = try #require(counters.rangeStarts.first)
        #expect(counters.rangeStarts.count == 1 && resumedAt > 0 && resumedAt <= 150_000)
        #expect(counters.bytesSent == 400_000 + (150_000 - resumedAt))
        #expect(counters.lastHeaders["if-range"] == route.entityTag)
        // Delivered as the whole resource's response, not the 206 of the retry that finished it.
        #expect(done.outcome.statusCode == 200, "\(done.outcome)")
        #expect(done.field("Content-Length") == ["400000"], "\(done.outcome.responseHeaders)")
        #expect(done.field("Content-Range").isEmpty, "\(done.outcome.responseHeaders)")
        #expect(done.field("ETag") == [route.entityTag])
        await harness.stop()
    }

    @Test("a resumed download keeps the header fields of the 200 it continues, updated by the 206's")
    func resumedResponseIsWhole() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 300_000)
        route.dropAfterBytes = 100_000
        route.wholeAnswerHeaders = [("Content-Disposition", "attachment; filename=\"book.epub\"")]
        route.extraHeaders = [("Content-Type", "application/epub+zip")]
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(harness.server.counters("/file").rangeStarts.count == 1)
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(done.outcome.statusCode == 200, "\(done.outcome)")
        #expect(done.field("Content-Disposition") == ["attachment; filename=\"book.epub\""])
        #expect(done.field("Content-Type") == ["application/epub+zip"])  // once: the 206's replaced the 200's
        #expect(done.field("Content-Length") == ["300000"])
        #expect(done.field("Content-Range").isEmpty)
        await harness.stop()
    }

    @Test("a 206 that ends before the resource is continued from where it ended, and delivered whole")
    func partialAnswersContinued() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 250_000)
        route.dropAfterBytes = 50_000
        route.maximumPartBytes = 40_000
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(done.outcome.statusCode == 200, "\(done.outcome)")
        #expect(done.field("Content-Length") == ["250000"])
        // After the drop, each request asks from where the previous part ended (no bytes twice),
        // and parts do not count as failed attempts (the harness allows 6).
        let starts = harness.server.counters("/file").rangeStarts
        #expect(starts.count >= 5, "\(starts)")
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 == 40_000 }, "\(starts)")
        await harness.stop()
    }

    @Test("without an ETag, If-Range carries Last-Modified")
    func resumeWithLastModified() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 200_000)
        route.sendsEntityTag = false
        route.dropAfterBytes = 70_000
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.server.counters("/file").lastHeaders["if-range"] == route.lastModified)
        #expect(harness.server.counters("/file").rangeStarts.count == 1)
        await harness.stop()
    }

    @Test("a resource that changed between attempts is detected: a 200 starts over, the new body is delivered")
    func changedResource() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 200_000)
        route.dropAfterBytes = 80_000
        route.changesWhenDropped = true  // version 2 from the second request on
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        var changed = route
        changed.version = 2
        #expect(done.bodyDigest == TransferHarness.sha256(changed.body()), "\(done.outcome)")
        #expect(done.outcome.responseHeaders.contains { $0.name == "ETag" && $0.value == changed.entityTag })
        let counters = harness.server.counters("/file")
        #expect(counters.rangeStarts.count == 1)  // asked to resume, with the old ETag in If-Range…
        #expect(counters.bytesSent == 80_000 + 200_000)  // …and got the whole new body
        await harness.stop()
    }

    @Test("a server without ranges starts over with a 200 and the body is still right")
    func noRangeSupport() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 150_000)
        route.supportsRanges = false
        route.dropAfterBytes = 50_000
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.server.counters("/file").requests == 2)
        await harness.stop()
    }

    @Test("5xx answers are retried with backoff, then the body is delivered")
    func serverErrorsRetried() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 10_000)
        route.failuresBeforeSuccess = 3
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.outcome.statusCode == 200, "\(done.outcome)")
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.server.counters("/file").requests == 4)
        await harness.stop()
    }

    @Test("a 5xx that lasts past the attempts completes with its response, as Apple delivers HTTP errors")
    func serverErrorsExhausted() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 10)
        route.failuresBeforeSuccess = 1000
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.outcome.statusCode == 503)
        #expect(done.outcome.errorCode == nil)
        #expect(done.body == Array("busy".utf8))
        #expect(harness.server.counters("/file").requests == TransferHarness.fastPolicy.maximumAttempts)
        await harness.stop()
    }

    @Test("a 404 download completes with its response and body, and no error")
    func notFoundDelivered() async throws {
        let harness = try await TransferHarness()
        let done = await harness.completion(of: harness.download("/missing"))
        #expect(done.outcome.statusCode == 404)
        #expect(done.outcome.errorCode == nil)
        #expect(done.body == Array("not found".utf8))
        #expect(harness.server.counters("/missing").requests == 1)
        await harness.stop()
    }

    @Test("redirects are followed and the final URL is reported")
    func redirectFollowed() async throws {
        let harness = try await TransferHarness()
        var hop = LoopbackRoute(size: 0)
        hop.redirectTo = "/final"
        harness.server.set("/start", hop)
        let route = LoopbackRoute(size: 5_000)
        harness.server.set("/final", route)
        let done = await harness.completion(of: harness.download("/start"))
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(done.outcome.responseURL == harness.server.url("/final"))
        await harness.stop()
    }

    @Test("a body whose SHA-256 differs from the expected one is not delivered")
    func checksumMismatch() async throws {
        let harness = try await TransferHarness()
        harness.server.set("/file", LoopbackRoute(size: 1_000))
        let done = await harness.completion(of: harness.download("/file", sha256: String(repeating: "0", count: 64)))
        #expect(done.outcome.errorCode == -1011)
        #expect(done.body == nil)
        #expect(done.outcome.errorMessage?.contains("SHA-256") == true)
        await harness.stop()
    }

    @Test("progress is checkpointed to the store while the body arrives; a delivered transfer is forgotten")
    func checkpointsWhileRunning() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 600_000)
        route.stallAtOffset = 300_000  // answers stop there, the connection open
        harness.server.set("/slow", route)
        let task = harness.download("/slow")
        var stored: Int64 = 0
        for _ in 0..<20_000 where stored < 200_000 {
            try await Task.sleep(for: .milliseconds(2))
            stored = try harness.store.transfers(of: TransferHarness.app).first { $0.task == task }?.bytesDone ?? 0
        }
        #expect(stored >= 200_000 && stored <= 300_000)  // checkpoints every 64 KiB here
        let partial = try #require(try harness.store.transfers(of: TransferHarness.app).first?.partialFile)
        #expect((harness.container.size(of: partial) ?? 0) >= stored)
        harness.transfers.cancel(
            app: TransferHarness.app,
            session: TransferHarness.session,
            task: task,
            resumeData: nil
        )
        #expect(await harness.completion(of: task).outcome.errorCode == -999)
        harness.transfers.flushCheckpoints()  // the removal is written with the next batch
        #expect(try harness.store.transfers(of: TransferHarness.app).isEmpty)  // delivered: forgotten
        #expect(harness.container.size(of: partial) == nil)  // and its file removed
        await harness.stop()
    }
}
