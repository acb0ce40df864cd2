import BackgroundCore
import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl why` against a running app (its control socket, not `--store`) lists the app's
/// background transfers beside its task requests: running, or waiting with every unmet
/// condition, in text and in `--json`.
@Suite("bgctl why against a running app lists its transfers")
struct LiveTransferWhyTests {
    /// A harness on battery and cellular holding a discretionary download (it waits for power
    /// and an unmetered network) and one whose session refuses cellular, and an embedded system
    /// of the same app that explains them.
    func waitingTransfers() async throws -> (TransferHarness, EmbeddedSystem) {
        let harness = try await TransferHarness(device: DeviceConditions(powerSource: .battery, network: .cellular))
        _ = harness.download("/a", requirements: TransferRequirements(isDiscretionary: true))
        _ = harness.download("/b", requirements: TransferRequirements(allowsCellularAccess: false))
        let system = EmbeddedSystem(
            configuration: .init(
                app: TransferHarness.app,
                clock: .manual(ManualClock()),
                terminationBehavior: .record,
                printsReportsToStandardError: false,
                launchCompletion: .explicit
            )
        )
        system.explainsTransfers(of: harness.transfers)
        return (harness, system)
    }

    @Test("the control channel's why: each waiting transfer with its reasons, in text and JSON")
    func controlChannel() async throws {
        let (harness, system) = try await waitingTransfers()
        let session = TransferHarness.session
        let reply = system.run(DebugCommand(action: .why, json: true))
        #expect(reply.outcome == .done)
        #expect(reply.text.contains("no pending task requests") == false, "\(reply.text)")
        #expect(reply.text.contains("\(session)#1 (transfer): not eligible now"), "\(reply.text)")
        #expect(reply.text.contains("needs external power"), "\(reply.text)")
        #expect(reply.text.contains("\(session)#2 (transfer): not eligible now"), "\(reply.text)")
        let document = try JSONDecoder().decode(WhyDocument.self, from: Data(try #require(reply.document).utf8))
        let transfers = try #require(document.transfers)
        #expect(transfers.map(\.identifier) == ["\(session)#1", "\(session)#2"])
        #expect(transfers.map(\.state) == ["waiting", "waiting"])
        #expect(transfers[0].eligibility.unmet == [.requiresExternalPower, .requiresUnmeteredNetwork])
        #expect(transfers[1].eligibility.unmet == [.cellularNotAllowed])
        #expect(document.transfersTimelineOrigin != nil)

        let one = system.run(DebugCommand(action: .why, identifier: "\(session)#2"))
        #expect(one.outcome == .done)
        #expect(one.text.contains("#1") == false, "only the transfer asked about: \(one.text)")
        let unknown = system.run(DebugCommand(action: .why, identifier: "\(session)#9", json: true))
        #expect(unknown.outcome == .notFound)
        await harness.stop()
    }

    @Test("bgctl why --app over the socket (no --store): the transfers, --json included")
    func overTheSocket() async throws {
        let (harness, system) = try await waitingTransfers()
        let directory = FileManager.default.temporaryDirectory.appending(path: "bg-live-why-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try system.acceptDebugCommands(in: directory)
        let arguments = ["why", "--app", TransferHarness.app.bundleIdentifier, "--control-directory", directory.path]
        let text = try await runBgctl(arguments)
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("\(TransferHarness.session)#1 (transfer): not eligible now"), "\(text.output)")
        #expect(text.output.contains("waits for an unmetered network"), "\(text.output)")
        let json = try await runBgctl(arguments + ["--json"])
        #expect(json.status == 0, "\(json.error)")
        let document = try JSONDecoder().decode(WhyDocument.self, from: Data(json.output.utf8))
        #expect(document.transfers?.map(\.state) == ["waiting", "waiting"])
        await harness.stop()
    }
}
