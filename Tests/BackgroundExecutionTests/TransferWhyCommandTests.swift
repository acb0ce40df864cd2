import BackgroundExecution
import BackgroundStore
import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl why --store` explains an app's waiting background transfers with the same
/// `Eligibility` as its task requests, under the device its flags describe.
@Suite("bgctl why on background transfers")
struct TransferWhyCommandTests {
    static let app: AppID = "com.example.reader"
    static let session = "com.example.reader.downloads"

    /// A store holding a discretionary download and one that may not use cellular, as the
    /// transfer engine checkpoints them (no app record: a process that only transfers).
    func makeStore(at path: String) throws {
        let store = try BackgroundStore(path: path)
        try store.saveTransfer(
            TransferCheckpoint(
                app: Self.app,
                session: Self.session,
                task: 1,
                kind: .download,
                method: "GET",
                url: "https://example.com/a",
                requirements: TransferRequirements(isDiscretionary: true)
            )
        )
        try store.saveTransfer(
            TransferCheckpoint(
                app: Self.app,
                session: Self.session,
                task: 2,
                kind: .download,
                method: "GET",
                url: "https://example.com/b",
                requirements: TransferRequirements(allowsCellularAccess: false)
            )
        )
        try store.checkpoint()
    }

    func withStore(_ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bg-why-transfer-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("s.sqlite").path
        try makeStore(at: path)
        try await body(path)
    }

    @Test("a discretionary download on battery and cellular: power and an unmetered network, in text")
    func discretionaryText() async throws {
        try await withStore { path in
            let run = try await runBgctl([
                "why", "\(Self.session)#1", "--app", Self.app.bundleIdentifier, "--store", path,
                "--power", "battery", "--network", "cellular",
            ])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("\(Self.session)#1 (transfer): not eligible now"), "\(run.output)")
            #expect(run.output.contains("needs external power"), "\(run.output)")
            #expect(run.output.contains("waits for an unmetered network"), "\(run.output)")
        }
    }

    @Test("every waiting transfer in JSON, each with its conditions as words")
    func everyTransferJSON() async throws {
        try await withStore { path in
            let run = try await runBgctl([
                "why", "--app", Self.app.bundleIdentifier, "--store", path, "--network", "cellular", "--json",
            ])
            #expect(run.status == 0, "\(run.error)")
            let document = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            let requests = try #require(document?["requests"] as? [[String: Any]])
            #expect(requests.map { $0["identifier"] as? String } == ["\(Self.session)#1", "\(Self.session)#2"])
            #expect(requests.map { $0["kind"] as? String } == ["transfer", "transfer"])
            let words = requests.map { ($0["unmet"] as? [[String: Any]])?.compactMap { $0["condition"] as? String } }
            #expect(words == [["requiresUnmeteredNetwork"], ["cellularNotAllowed"]])
        }
    }

    @Test("on Wi-Fi and external power both may run; an unknown transfer is a negative answer (exit 1)")
    func eligibleAndUnknown() async throws {
        try await withStore { path in
            let run = try await runBgctl([
                "why", "\(Self.session)#2", "--app", Self.app.bundleIdentifier, "--store", path,
            ])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("\(Self.session)#2 (transfer): eligible now"), "\(run.output)")
            let unknown = try await runBgctl([
                "why", "\(Self.session)#9", "--app", Self.app.bundleIdentifier, "--store", path,
            ])
            #expect(unknown.status == 1)
        }
    }

    @Test("Low Data Mode holds back a transfer whose session does not allow constrained networks")
    func lowDataMode() async throws {
        try await withStore { path in
            let store = try BackgroundStore(path: path)
            try store.saveTransfer(
                TransferCheckpoint(
                    app: Self.app,
                    session: Self.session,
                    task: 3,
                    kind: .upload,
                    method: "PUT",
                    url: "https://example.com/c",
                    bodyFile: "up.bin",
                    requirements: TransferRequirements(allowsConstrainedNetworkAccess: false)
                )
            )
            try store.checkpoint()
            let run = try await runBgctl([
                "why", "\(Self.session)#3", "--app", Self.app.bundleIdentifier, "--store", path, "--low-data-mode",
            ])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("Low Data Mode"), "\(run.output)")
        }
    }
}
