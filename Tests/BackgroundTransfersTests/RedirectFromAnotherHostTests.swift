import BackgroundCore
import BackgroundTestSupport
import Foundation
import Logging
import Synchronization
import Testing
import TransferTestServer

@testable import BackgroundTransfers

/// Issue 25, finding 12, end to end: a transfer whose server is another host (a network namespace
/// reached over a veth pair, ``NamespacedHost``) answers with a redirect to a service on this
/// machine's loopback. The transfer fails with `-1004` and the service never hears of it.
@Suite(
    "Redirects from another host",
    .enabled(
        if: NamespacedHost.mayBeMade || OptionalTools.required,
        "skipped: needs root and iproute2's ip to make a network namespace (CI runs as root and installs iproute2)"
    )
)
struct RedirectFromAnotherHostTests {
    /// The other host with its server, and a harness whose loopback server plays the local service.
    struct Setting {
        let host: NamespacedHost
        let origin: LoopbackServer
        let harness: TransferHarness
        let log: LogLines

        init(reach: RedirectReach = .system) async throws {
            do {
                host = try await NamespacedHost.make()
            } catch {
                if OptionalTools.required { throw error }
                try Test.cancel("skipped: no network namespace can be made here: \(error)")
            }
            let socket = try await host.listeningSocket()
            origin = try await LoopbackServer.start(listeningSocket: socket, host: host.address)
            let log = LogLines()
            self.log = log
            harness = try await TransferHarness(
                logger: Logger(label: "test") { _ in LogLines.Handler(lines: log) },
                reach: reach
            )
            harness.server.set("/secret", LoopbackRoute(size: 100))
        }

        /// A route on the other host that redirects to `target`.
        func redirect(_ path: String, to target: String) {
            var hop = LoopbackRoute(size: 0)
            hop.redirectTo = target
            origin.set(path, hop)
        }

        func stop() async {
            await harness.stop()
            try? await origin.shutdown()
            await host.remove()
        }
    }

    /// Log lines, recorded.
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])

        struct Handler: LogHandler {
            let lines: LogLines
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) { lines.lines.withLock { $0.append("\(event.message)") } }
        }
    }

    @Test("a redirect from another host to this machine is refused however the target is spelled")
    func redirectToLoopbackRefused() async throws {
        let setting = try await Setting()
        let port = setting.harness.server.port
        let targets = [
            "http://127.0.0.1:\(port)/secret",
            "http://[::ffff:127.0.0.1]:\(port)/secret",
            "http://2130706433:\(port)/secret",
            "http://localhost:\(port)/secret",
            "http://0.0.0.0:\(port)/secret",
            "http://[::1]:\(port)/secret",
            "http://\(setting.host.localAddress):\(port)/secret",
        ]
        for (index, target) in targets.enumerated() {
            setting.redirect("/to-\(index)", to: target)
            let origin = setting.origin.url("/to-\(index)")
            let task = setting.harness.download("", url: origin)
            let done = await setting.harness.completion(of: task)
            #expect(done.outcome.errorCode == -1004, "\(target): \(done.outcome)")
            #expect(
                done.outcome.errorMessage?.contains("\(target) is refused: it leads to this host") == true,
                "\(target)"
            )
            #expect(setting.origin.counters("/to-\(index)").requests == 1, "\(target): asked once, not retried")
            let lines = setting.log.lines.withLock { $0 }.filter { $0.contains("transfer \(task) ") }
            #expect(lines.count == 1, "\(target): \(lines)")
            #expect(lines.first.map { $0.contains(origin) && $0.contains(target) } == true, "\(lines)")
        }
        #expect(setting.harness.server.counters("/secret").requests == 0)
        await setting.stop()
    }

    @Test("the other host is another host: its redirects to itself are followed, to the final URL")
    func redirectOnTheOtherHostFollowed() async throws {
        let setting = try await Setting()
        setting.redirect("/start", to: "/final")
        let route = LoopbackRoute(size: 5_000)
        setting.origin.set("/final", route)
        let done = await setting.harness.completion(of: setting.harness.download("", url: setting.origin.url("/start")))
        #expect(done.outcome.errorCode == nil, "\(done.outcome)")
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()))
        #expect(done.outcome.responseURL == setting.origin.url("/final"))
        await setting.stop()
    }

    @Test("a redirect to a name is checked by what the name resolves to, and sent to the address checked")
    func namesResolvedAndPinned() async throws {
        let names = Mutex<[String: [IPAddress]]>([:])
        let reach = RedirectReach(
            lookUp: { host, port in
                if let known = names.withLock({ $0[host] }) { return known }
                return await NetworkLookup.addresses(of: host, port: port)
            },
            ownAddresses: { NetworkLookup.ownAddresses() }
        )
        let setting = try await Setting(reach: reach)
        let other = try #require(IPAddress(literal: setting.host.address))
        names.withLock { $0 = ["rebind.test": [IPAddress(literal: "127.0.0.1")!], "other-host.test": [other]] }
        let port = setting.harness.server.port
        setting.redirect("/to-rebind", to: "http://rebind.test:\(port)/secret")
        let refused = await setting.harness.completion(
            of: setting.harness.download("", url: setting.origin.url("/to-rebind"))
        )
        #expect(refused.outcome.errorCode == -1004, "\(refused.outcome)")
        #expect(refused.outcome.errorMessage?.contains("this host (127.0.0.1)") == true, "\(refused.outcome)")
        #expect(setting.harness.server.counters("/secret").requests == 0)

        // No resolver outside this test knows other-host.test: it arrives only if sent to the address checked.
        let named = "http://other-host.test:\(setting.origin.port)/final"
        setting.redirect("/to-name", to: named)
        let route = LoopbackRoute(size: 2_000)
        setting.origin.set("/final", route)
        let done = await setting.harness.completion(
            of: setting.harness.download("", url: setting.origin.url("/to-name"))
        )
        #expect(done.outcome.errorCode == nil, "\(done.outcome)")
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()))
        #expect(done.outcome.responseURL == named)
        #expect(setting.origin.counters("/final").lastHeaders["host"] == "other-host.test:\(setting.origin.port)")
        await setting.stop()
    }
}
