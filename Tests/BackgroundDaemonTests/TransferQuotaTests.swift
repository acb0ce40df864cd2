import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Testing

/// Issue 25, finding 4: an app could queue 64 sessions × 10,000 transfers with ~65 KB of header
/// fields each, all kept in memory and in the store. Now each app holds at most 2,000 transfers
/// not yet delivered, carrying at most 4 MiB of header fields together; an order past either is
/// completed at once with an error, as the daemon's other refusals are.
@Suite("Transfer quotas per app", .serialized)
struct TransferQuotaTests {
    /// A waiting download (discretionary, on battery) of task `task`, with `headerBytes` of
    /// header fields.
    static func submit(_ host: TransferHostTests.Host, _ link: RecordingLink, task: Int, headerBytes: Int = 0) {
        let headers =
            headerBytes > 0
            ? [TransferHeader(name: "X-Big", value: String(repeating: "a", count: headerBytes - 5))] : []
        host.download(
            "/book",
            task: task,
            from: link,
            requirements: TransferRequirements(isDiscretionary: true),
            headers: headers
        )
    }

    static func refusal(_ link: RecordingLink, task: Int) -> String? {
        TransferHostTests.completion(link, task: task)?.0.outcome?.errorMessage
    }

    @Test("the 2,001st transfer an app holds is refused; one delivered makes room")
    func count() async throws {
        let host = try await TransferHostTests.Host(developerMode: true)
        defer { Task { await host.stop() } }
        #expect(host.fixture.engine.answer(.overrideDevice(["power=battery"])).outcome == .ok)
        let link = host.fixture.connect(TransferHostTests.notes)
        host.attach(link)
        for task in 1...2_000 { Self.submit(host, link, task: task) }
        #expect(TransferHostTests.completion(link, task: 2_000) == nil, "the 2,000th waits")
        Self.submit(host, link, task: 2_001)
        #expect(
            Self.refusal(link, task: 2_001)
                == "backgroundd refused the transfer: the app holds 2000 transfers, its quota (2000)"
        )
        host.call(.cancel(session: TransferHostTests.session, task: 1, wantsResumeData: false), from: link)
        #expect(await TransferHostTests.waitFor { TransferHostTests.completion(link, task: 1) != nil })
        host.call(.delivered(session: TransferHostTests.session, task: 1), from: link)
        Self.submit(host, link, task: 2_002)
        let engine = host.fixture.engine
        #expect(
            await TransferHostTests.waitFor {
                engine.transfers?.transferStatus(of: TransferHostTests.notes)?.transfers.count == 2_000
            }
        )
        #expect(TransferHostTests.completion(link, task: 2_002) == nil, "queued, not refused")
    }

    @Test("header fields past 4 MiB for one app are refused, whatever the count")
    func headerBytes() async throws {
        let host = try await TransferHostTests.Host(developerMode: true)
        defer { Task { await host.stop() } }
        #expect(host.fixture.engine.answer(.overrideDevice(["power=battery"])).outcome == .ok)
        let link = host.fixture.connect(TransferHostTests.notes)
        host.attach(link)
        // 64 orders of 64,000 bytes fit in 4 MiB (4,194,304); the 66th does not.
        for task in 1...65 { Self.submit(host, link, task: task, headerBytes: 64_000) }
        #expect(TransferHostTests.completion(link, task: 65) == nil)
        Self.submit(host, link, task: 66, headerBytes: 64_000)
        let refusal = Self.refusal(link, task: 66)
        #expect(refusal?.contains("over its quota (4194304)") == true, "\(refusal ?? "none")")
        Self.submit(host, link, task: 67)
        #expect(TransferHostTests.completion(link, task: 67) == nil, "an order without header fields still fits")
    }
}
