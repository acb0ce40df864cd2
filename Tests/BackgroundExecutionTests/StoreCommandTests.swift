import BackgroundExecution
import BackgroundStore
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 9, defects 2 to 5: `bgctl why --store` explains without changing or creating anything,
/// `scheduler-example` refuses a store it cannot write, and a clean exit leaves the data in the
/// main file.
@Suite("bgctl and the store: read-only explanations, refused read-only stores, checkpoint at exit")
struct StoreCommandTests {
    static let app: AppID = "com.example.scheduler"
    static let cleanup = "com.example.scheduler.cleanup"
    static let nobody = "65534"

    func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bg-store-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            chmod(folder.path, 0o755)
            try? FileManager.default.removeItem(at: folder)
        }
        try await body(folder)
    }

    /// A store the scheduler example would leave: its manifest and a cleanup that needs power.
    func makeStore(at path: String) throws {
        let store = try BackgroundStore(path: path)
        let manifest = AppManifest(
            bundleIdentifier: Self.app,
            permittedTaskIdentifiers: ["com.example.scheduler.refresh", Self.cleanup],
            backgroundModes: [.fetch, .processing]
        )
        let cleanup = TaskRequest(identifier: Self.cleanup, kind: .processing, requiresExternalPower: true)
        try store.apply(
            [.saveManifest(manifest), .recordLaunch(Self.app, at: .zero), .savePendingRequest(Self.app, cleanup)],
            clock: WallClock(unixSecondsAtOrigin: Date().timeIntervalSince1970)
        )
        try store.checkpoint()
    }

    /// Runs `bgctl` as another user (nobody) when the tests run as root, so file permissions
    /// apply; as itself otherwise.
    func bgctlAsAnotherUser(_ arguments: [String]) async throws -> ChildProcessResult {
        guard geteuid() == 0 else { return try await runBgctl(arguments) }
        let user = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups"]
        return try await runChildProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            user + [bgctlExecutable.path] + arguments
        )
    }

    @Test("why --store explains a request that is ready to run (it is not launched away) and changes no byte")
    func whyDoesNotDispatch() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("s.sqlite").path
            try makeStore(at: path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let listing = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let run = try await runBgctl(["why", Self.cleanup, "--app", Self.app.bundleIdentifier, "--store", path])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("\(Self.cleanup) (processing): eligible now"), "\(run.output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == listing)
        }
    }

    @Test("why --store with a mistyped path: 'No such file or directory', exit 66, nothing created")
    func whyMissingStore() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("typo.sqlite").path
            let run = try await runBgctl(["why", "--app", Self.app.bundleIdentifier, "--store", path])
            #expect(run.status == 66)
            #expect(run.error == "bgctl why: \(path): No such file or directory\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("why --store with a zero-length file: refused with exit 65, the file stays empty")
    func whyEmptyStore() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("empty.sqlite").path
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let run = try await runBgctl(["why", "--app", Self.app.bundleIdentifier, "--store", path])
            #expect(run.status == 65)
            #expect(run.error == "bgctl why: \(path) is not a background store: it is empty\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["empty.sqlite"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        }
    }

    @Test("why --store refuses a symbolic link (exit 65, one line) unless --follow-store-link")
    func whyLinkedStore() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("s.sqlite").path
            try makeStore(at: path)
            let link = folder.appendingPathComponent("link.sqlite").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            let arguments = ["why", Self.cleanup, "--app", Self.app.bundleIdentifier, "--store", link]
            let refused = try await runBgctl(arguments)
            #expect(refused.status == 65)
            #expect(refused.error.hasPrefix("bgctl why: refusing the store \(link): "), "\(refused.error)")
            #expect(refused.error.split(separator: "\n").count == 1)
            let followed = try await runBgctl(arguments + ["--follow-store-link"])
            #expect(followed.status == 0, "\(followed.error)")
            #expect(followed.output.contains("\(Self.cleanup) (processing): eligible now"))
        }
    }

    @Test("why --store reads a store in a directory it cannot write")
    func whyReadOnlyDirectory() async throws {
        try await withFolder { folder in
            let directory = folder.appendingPathComponent("ro")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            let path = directory.appendingPathComponent("s.sqlite").path
            try makeStore(at: path)
            chmod(path, 0o644)
            chmod(directory.path, 0o555)
            let run = try await bgctlAsAnotherUser([
                "why", Self.cleanup, "--app", Self.app.bundleIdentifier, "--store", path,
            ])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("\(Self.cleanup) (processing): eligible now"), "\(run.output)")
        }
    }

    @Test("scheduler-example refuses a store it cannot write: one line naming the path, exit 77, never 'ready'")
    func schedulerRefusesReadOnlyStore() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("s.sqlite").path
            try makeStore(at: path)
            chmod(path, 0o444)
            if geteuid() == 0 {
                // The user owns the directory and the file; only the file's mode forbids writing.
                chown(folder.path, 65534, 65534)
                chown(path, 65534, 65534)
            }
            let control = folder.appendingPathComponent("control").path
            let run = try await bgctlAsAnotherUser([
                "scheduler-example", "--store", path, "--control-directory", control,
            ])
            #expect(run.status == 77, "\(run.output) \(run.error)")
            #expect(!run.output.contains("ready"))
            let lines = run.error.split(separator: "\n")
            #expect(lines.count == 1, "\(run.error)")
            #expect(lines.first?.hasPrefix("bgctl scheduler-example: cannot write to \(path)") == true, "\(run.error)")
        }
    }

    @Test("After SIGTERM the main file alone holds the requests: a copy of it without -wal loads them")
    func checkpointAtCleanExit() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("s.sqlite").path
            let control = folder.appendingPathComponent("control").path
            let service = try await runChildProcessUntilSignalled(
                bgctlExecutable,
                ["scheduler-example", "--store", path, "--control-directory", control],
                after: "ready"
            )
            #expect(service.status == 0)
            let copyFolder = folder.appendingPathComponent("copy")
            try FileManager.default.createDirectory(at: copyFolder, withIntermediateDirectories: false)
            let copy = copyFolder.appendingPathComponent("s.sqlite").path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            let clock = WallClock(unixSecondsAtOrigin: Date().timeIntervalSince1970)
            let apps = try BackgroundStore.openForReading(path: copy).load(clock: clock)
            let identifiers = apps.first { $0.app == Self.app }?.pendingRequests.map(\.identifier).sorted()
            #expect(identifiers == ["com.example.scheduler.cleanup", "com.example.scheduler.refresh"])
        }
    }
}
