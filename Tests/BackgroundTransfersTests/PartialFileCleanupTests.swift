import BackgroundCore
import BackgroundStore
import BackgroundTransfers
import Foundation
import Testing

/// Partial files kept for resume data the app never hands back are removed 7 days after their
/// last write, at the next attach, unless a transfer uses them.
@Suite("Partial files of resume data never used are removed after 7 days")
struct PartialFileCleanupTests {
    static let app = AppID("com.example.cleanup")

    /// Writes a file below `root` last modified `age` seconds ago.
    func write(_ root: String, _ relative: String, age: Double) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 10)))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -age)],
            ofItemAtPath: path
        )
    }

    @Test("At attach: an old unused partial file goes; a recent one, one a stored transfer names, others stay")
    func removedAtAttach() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cleanup-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let container = try TransferContainer(root: directory + "/Container")
        let root = container.root
        let week = 7 * 24 * 3600.0
        try write(root, "Transfers/s/1.partial", age: week + 3600)
        try write(root, "Transfers/s/2.partial", age: week - 3600)
        try write(root, "Transfers/s/3.partial", age: week + 3600)
        try write(root, "Transfers/other/4.partial", age: week + 3600)
        try write(root, "Documents/old.bin", age: week + 3600)
        try write(directory, "outside.partial", age: week + 3600)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/Transfers/s/5.partial",
            withDestinationPath: directory + "/outside.partial"
        )
        // A completed transfer not yet delivered still uses 3.partial (its resume data may come).
        let store = try BackgroundStore(path: directory + "/store.sqlite")
        var stored = TransferCheckpoint(
            app: Self.app,
            session: "s",
            task: 3,
            kind: .download,
            state: .completed,
            method: "GET",
            url: "http://127.0.0.1:9/a",
            partialFile: "Transfers/s/3.partial"
        )
        stored.outcome = TransferOutcome(errorCode: -999, errorMessage: "cancelled")
        try store.saveTransfer(stored)
        let transfers = EmbeddedTransfers(configuration: .init(app: Self.app, container: container, store: store))
        _ = transfers.attach(TransferSessionOptions(app: Self.app, session: "s")) { _ in }
        let exists = { (relative: String) in FileManager.default.fileExists(atPath: root + "/" + relative) }
        #expect(!exists("Transfers/s/1.partial"), "unused for more than 7 days")
        #expect(!exists("Transfers/other/4.partial"), "every session's directory is looked at")
        #expect(exists("Transfers/s/2.partial"), "written less than 7 days ago")
        #expect(exists("Transfers/s/3.partial"), "a stored transfer names it")
        #expect(exists("Documents/old.bin"), "only Transfers/ is looked at")
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/Transfers/s/5.partial")) != nil,
            "a symbolic link is not a partial file: left alone"
        )
        #expect(FileManager.default.fileExists(atPath: directory + "/outside.partial"), "nothing is followed")
    }

    @Test("Resume data whose partial file was removed is refused (-1, nothing requested)")
    func resumeDataOfRemovedFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cleanup-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let container = try TransferContainer(root: directory + "/Container")
        try write(container.root, "Transfers/s/1.partial", age: 8 * 24 * 3600)
        let transfers = EmbeddedTransfers(configuration: .init(app: Self.app, container: container))
        let completions = AsyncStream<TransferOutcome?>.makeStream()
        _ = transfers.attach(TransferSessionOptions(app: Self.app, session: "s")) { event in
            if case .completed(let transfer, _, _) = event { completions.continuation.yield(transfer.outcome) }
        }
        let document = """
            {"app":"com.example.cleanup","bytes":5,"entityTag":"\\"v1\\"","expectedLength":10,\
            "format":"background-execution.resume-data","lastModified":null,"partialFile":"Transfers/s/1.partial",\
            "session":"s","task":1,"url":"http://127.0.0.1:9/a","version":1}
            """
        let task = transfers.reserveTaskIdentifier(app: Self.app, session: "s")
        let checkpoint = TransferCheckpoint(
            app: Self.app,
            session: "s",
            task: task,
            kind: .download,
            method: "GET",
            url: ""
        )
        transfers.submit(TransferOrder(transfer: checkpoint, resumeData: [UInt8](document.utf8)))
        var iterator = completions.stream.makeAsyncIterator()
        let outcome = try #require(await iterator.next() ?? nil)
        #expect(outcome.errorCode == -1)
        #expect(outcome.errorMessage == "resume data refused: its partial file is missing or shorter than 5 bytes")
    }
}
