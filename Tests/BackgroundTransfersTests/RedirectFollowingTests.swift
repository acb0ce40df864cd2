import AsyncHTTPClient
import BackgroundCore
import NIOCore
import NIOHTTP1
import Testing
import TransferTestServer

@testable import BackgroundTransfers

/// The engine follows redirects itself, one at a time, so that the reach rule sees each before
/// it is sent (``TransferRun/send(_:for:deadline:)``); these hold it to what AsyncHTTPClient did
/// when it followed them: the limit, cycles, a 303's GET, an upload's body never sent twice.
@Suite("Redirects followed by the engine")
struct RedirectFollowingTests {
    /// A chain of `count` redirects from `/chain0` to `/final`.
    static func chain(_ harness: TransferHarness, _ count: Int, _ name: String) {
        for index in 0..<count {
            var hop = LoopbackRoute(size: 0)
            hop.redirectTo = index + 1 == count ? "/final" : "/\(name)\(index + 1)"
            harness.server.set("/\(name)\(index)", hop)
        }
    }

    @Test("at most maximumRedirects are followed; one more fails with -1007")
    func redirectLimit() async throws {
        var policy = TransferHarness.fastPolicy
        policy.maximumRedirects = 3
        let harness = try await TransferHarness(policy: policy)
        let route = LoopbackRoute(size: 1_000)
        harness.server.set("/final", route)
        Self.chain(harness, 3, "short")
        Self.chain(harness, 4, "long")
        let within = await harness.completion(of: harness.download("/short0"))
        #expect(within.bodyDigest == TransferHarness.sha256(route.body()), "\(within.outcome)")
        let past = await harness.completion(of: harness.download("/long0"))
        #expect(past.outcome.errorCode == -1007, "\(past.outcome)")
        #expect(harness.server.counters("/long3").requests == 1)
        #expect(harness.server.counters("/final").requests == 1)
        await harness.stop()
    }

    @Test("a redirect back to a URL already visited fails with -1007")
    func redirectCycle() async throws {
        let harness = try await TransferHarness()
        var first = LoopbackRoute(size: 0)
        first.redirectTo = "/b"
        var second = LoopbackRoute(size: 0)
        second.redirectTo = "/a"
        harness.server.set("/a", first)
        harness.server.set("/b", second)
        let done = await harness.completion(of: harness.download("/a"))
        #expect(done.outcome.errorCode == -1007, "\(done.outcome)")
        #expect(done.outcome.errorMessage?.contains("cycle") == true)
        await harness.stop()
    }

    @Test("a 303 to an upload is followed with a GET and no body; a 307 is the upload's response")
    func uploadRedirects() async throws {
        let harness = try await TransferHarness()
        var seeOther = LoopbackRoute(size: 0)
        seeOther.redirectTo = "/landing"
        seeOther.redirectStatus = 303
        harness.server.set("/post", seeOther)
        var temporary = LoopbackRoute(size: 0)
        temporary.redirectTo = "/elsewhere"
        temporary.redirectStatus = 307
        harness.server.set("/put", temporary)
        let landing = LoopbackRoute(size: 10)
        harness.server.set("/landing", landing)
        let file = try harness.makeFile("up.bin", size: 20_000)

        let posted = await harness.completion(of: harness.upload(file, to: "/post", method: "POST"))
        #expect(posted.outcome.statusCode == 200, "\(posted.outcome)")
        #expect(posted.outcome.responseBody == landing.body())
        #expect(posted.outcome.responseURL == harness.server.url("/landing"))
        #expect(harness.server.counters("/landing").bytesReceived == 0)

        let put = await harness.completion(of: harness.upload(file, to: "/put"))
        #expect(put.outcome.statusCode == 307, "\(put.outcome)")
        #expect(harness.server.counters("/elsewhere").requests == 0)
        await harness.stop()
    }

    /// A response with `status` and `Location`.
    static func response(_ status: UInt, location: String) -> HTTPClientResponse {
        HTTPClientResponse(status: HTTPResponseStatus(statusCode: Int(status)), headers: ["Location": location])
    }

    @Test("Location is resolved against the URL that answered; only redirect statuses to http(s) count")
    func redirectTargets() {
        let base = "http://127.0.0.1:8080/a/b?x=1"
        #expect(
            TransferRun.redirectTarget(of: Self.response(302, location: "c"), from: base) == "http://127.0.0.1:8080/a/c"
        )
        #expect(
            TransferRun.redirectTarget(of: Self.response(301, location: "/d"), from: base) == "http://127.0.0.1:8080/d"
        )
        #expect(
            TransferRun.redirectTarget(of: Self.response(308, location: "//127.0.0.2/e"), from: base)
                == "http://127.0.0.2/e"
        )
        #expect(TransferRun.redirectTarget(of: Self.response(304, location: "/d"), from: base) == nil)
        #expect(TransferRun.redirectTarget(of: Self.response(200, location: "/d"), from: base) == nil)
        #expect(TransferRun.redirectTarget(of: Self.response(302, location: "ftp://127.0.0.1/f"), from: base) == nil)
        #expect(TransferRun.redirectTarget(of: Self.response(302, location: "file:///etc/passwd"), from: base) == nil)
    }
}
