import BackgroundCore
import Foundation
import Testing
import TransferTestServer

@testable import BackgroundTransfers

/// Every bad input of issue 12 item 5: schemes, paths outside the container, resume data,
/// oversized headers, servers that lie about lengths and ranges.
@Suite("Untrusted input")
struct UntrustedInputTests {
    @Test(
        "only http and https are transferred",
        arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "http:///x", "gopher://a"]
    )
    func schemes(url: String) async throws {
        let harness = try await TransferHarness()
        let done = await harness.completion(of: harness.download("/x", url: url))
        #expect(done.outcome.errorCode == -1002)
        #expect(harness.server.counters("/x").requests == 0)
        await harness.stop()
    }

    @Test("an upload of a file outside the container is refused before any byte is sent")
    func uploadOutsideContainer() async throws {
        let harness = try await TransferHarness()
        harness.server.set("/upload", LoopbackRoute(size: 0))
        for path in ["/etc/passwd", harness.container.root + "/../store.sqlite", harness.container.root + "/./a"] {
            let done = await harness.completion(of: harness.upload(path, to: "/upload"))
            #expect(done.outcome.errorCode == -1100, "\(path)")
        }
        #expect(harness.server.counters("/upload").requests == 0)
        await harness.stop()
    }

    @Test("an upload through a symbolic link inside the container is refused")
    func uploadThroughSymlink() async throws {
        let harness = try await TransferHarness()
        harness.server.set("/upload", LoopbackRoute(size: 0))
        try FileManager.default.createSymbolicLink(
            atPath: harness.container.root + "/link",
            withDestinationPath: "/etc"
        )
        let done = await harness.completion(of: harness.upload(harness.container.root + "/link/passwd", to: "/upload"))
        #expect(done.outcome.errorCode == -1100)
        #expect(harness.server.counters("/upload").requests == 0)
        await harness.stop()
    }

    /// Resume data as a JSON object, from a valid one with `change` applied.
    private func resumeData(_ harness: TransferHarness, _ change: (inout [String: Any]) -> Void) throws -> [UInt8] {
        let partial = "Transfers/s/1.partial"
        let descriptor = try harness.container.openForWriting(partial, truncating: true)
        _ = write(descriptor, [UInt8](repeating: 1, count: 100), 100)
        close(descriptor)
        var object: [String: Any] = [
            "format": "background-execution.resume-data", "version": 1, "app": TransferHarness.app.bundleIdentifier,
            "session": "s", "task": 1, "url": harness.server.url("/file"), "partialFile": partial, "bytes": 100,
            "entityTag": "\"v1-1000\"",
        ]
        change(&object)
        return [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    /// Each way of spoiling valid resume data.
    static func spoil(_ name: String, _ object: inout [String: Any]) {
        switch name {
        case "version 2": object["version"] = 2
        case "another format": object["format"] = "NSKeyedArchiver"
        case "another app": object["app"] = "com.example.other"
        case "a path outside": object["partialFile"] = "Transfers/../../store.sqlite"
        case "an absolute path": object["partialFile"] = "/etc/passwd"
        case "a file not written by the engine": object["partialFile"] = "Documents/a"
        case "more bytes than the file": object["bytes"] = 1_000
        case "no validator": object["entityTag"] = nil
        case "an ftp URL": object["url"] = "ftp://127.0.0.1/file"
        case "negative bytes": object["bytes"] = -5
        default: Issue.record("unknown spoiling \(name)")
        }
    }

    @Test(
        "resume data that does not validate is refused, and names no file outside the container",
        arguments: [
            "version 2", "another format", "another app", "a path outside", "an absolute path",
            "a file not written by the engine", "more bytes than the file", "no validator", "an ftp URL",
            "negative bytes",
        ]
    )
    func badResumeData(name: String) async throws {
        let harness = try await TransferHarness()
        harness.server.set("/file", LoopbackRoute(size: 1_000))
        let data = try resumeData(harness) { Self.spoil(name, &$0) }
        let done = await harness.completion(of: harness.download("/file", resumeData: data))
        #expect(done.outcome.errorCode == -1, "\(name)")
        #expect(done.outcome.errorMessage?.hasPrefix("resume data refused") == true, "\(name)")
        #expect(harness.server.counters("/file").requests == 0, "\(name)")
        await harness.stop()
    }

    @Test("resume data that is not JSON, or too large, is refused")
    func garbageResumeData() async throws {
        let harness = try await TransferHarness()
        for data in [[UInt8](repeating: 0xff, count: 10), [UInt8](repeating: 0x20, count: 70_000), []] {
            let done = await harness.completion(of: harness.download("/file", resumeData: data))
            #expect(done.outcome.errorCode == -1)
        }
        await harness.stop()
    }

    @Test("valid resume data continues from its byte count")
    func validResumeData() async throws {
        let harness = try await TransferHarness()
        let route = LoopbackRoute(size: 1_000)
        harness.server.set("/file", route)
        // The first 100 bytes as the server would have sent them.
        let data = try resumeData(harness) { _ in }
        let descriptor = try harness.container.openForWriting("Transfers/s/1.partial", truncating: true)
        _ = write(descriptor, Array(route.body().prefix(100)), 100)
        close(descriptor)
        let done = await harness.completion(of: harness.download("/file", resumeData: data))
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.server.counters("/file").rangeStarts == [100])
        #expect(harness.server.counters("/file").bytesSent == 900)
        await harness.stop()
    }

    @Test("a response with too many header fields fails without delivering a body")
    func oversizedHeaders() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 10)
        route.extraHeaders = (0..<150).map { ("X-Field-\($0)", "value") }
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.outcome.errorCode == -1011)
        #expect(done.body == nil)
        #expect(harness.server.counters("/file").requests == 1)  // not retried
        await harness.stop()
    }

    @Test("a Content-Range that does not continue the bytes held restarts from zero; the file is right")
    func lyingRangeStart() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 100_000)
        route.dropAfterBytes = 30_000
        route.lie = .rangeStartsLater(by: 10)
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.server.counters("/file").rangeStarts == [30_000])
        #expect(harness.server.counters("/file").requests == 3)  // cut, lied to, started over
        await harness.stop()
    }

    @Test("a 206 from byte 0 when a later byte was asked restarts cleanly")
    func rangeFromZero() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 50_000)
        route.dropAfterBytes = 10_000
        route.lie = .rangeFromZero
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        await harness.stop()
    }

    @Test("a Content-Length longer than every body ends in a failure after the bounded attempts, not a loop")
    func lyingLength() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 20_000)
        route.lie = .lengthLongerThanBody(by: 5_000)
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.outcome.errorCode == -1005)
        #expect(done.body == nil)
        #expect(harness.server.counters("/file").requests == TransferHarness.fastPolicy.maximumAttempts)
        await harness.stop()
    }

    /// Issue 25, finding 1: this 206 trapped at `range.last + 1` and killed the (root) daemon,
    /// and again after each restart, which restored the transfer from its checkpoint.
    @Test(
        "a 206 stating a range up to Int64.max (or any number past 18 digits) is refused, never trapped on",
        arguments: [
            "bytes 10-9223372036854775807/*", "bytes 10-9223372036854775806/9223372036854775807",
            "bytes 10-99999999999999999999/*", "bytes +10-20/*", "bytes 10--20/*", "bytes 10-20/",
        ]
    )
    func rangeToTheEndOfInt64(stated: String) async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 1_000)
        route.dropAfterBytes = 10
        route.lie = .statedRange(stated)
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        // Cut after 10 bytes, the lying 206 refused, then the whole body again from byte 0.
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.server.counters("/file").rangeStarts == [10])
        #expect(harness.server.counters("/file").requests == 3)
        await harness.stop()
    }

    /// Issue 25, finding 8: one-byte 206 answers were each continued at once, without counting
    /// as an attempt: 4,100 requests in 42 s, bounded only by the 7-day resource timeout.
    @Test("parts smaller than the policy's minimum count as attempts: a trickling server gets maximumAttempts requests")
    func tricklingParts() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 100_000)
        route.dropAfterBytes = 10
        route.maximumPartBytes = 1
        harness.server.set("/file", route)
        let done = await harness.completion(of: harness.download("/file"))
        #expect(done.outcome.errorCode == -1005, "\(done.outcome)")
        #expect(harness.server.counters("/file").requests == TransferHarness.fastPolicy.maximumAttempts)
        await harness.stop()
    }

    @Test("a stated length is 1 to 18 ASCII digits: no sign, no space, nothing past 10^18")
    func statedNumbers() {
        #expect(HTTPDecimal.parse("0") == 0)
        #expect(HTTPDecimal.parse("1000") == 1_000)
        #expect(HTTPDecimal.parse("999999999999999999") == 999_999_999_999_999_999)
        for text in ["", "+5", "-5", " 5", "5 ", "1e3", "0x10", "9223372036854775807", "1000000000000000000", "٣"] {
            #expect(HTTPDecimal.parse(text) == nil, "\(text)")
        }
        #expect(ContentRange("bytes 0-9/10") == ContentRange("bytes 0-9/10"))
        #expect(ContentRange("bytes 0-9/10")?.last == 9)
        #expect(ContentRange("bytes 10-9223372036854775807/*") == nil)
        #expect(ContentRange("bytes 9-8/*") == nil)
    }
}
