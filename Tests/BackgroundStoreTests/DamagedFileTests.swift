import BackgroundCore
import BackgroundStore
import BackgroundTestSupport
import Foundation
import GRDB
import Testing

@Suite("Damaged files are reported, never lost")
struct DamagedFileTests {
    /// Writes `bytes` to a file, opens a store on it, and checks the error and that nothing in the
    /// directory changed.
    func openDamaged(_ bytes: Data, in directory: ScratchDirectory) throws -> StoreError? {
        let path = directory.file("store.sqlite")
        try bytes.write(to: URL(fileURLWithPath: path))
        let listing = try directory.listing()
        let error = storeError { try BackgroundStore(path: path) }
        #expect(error?.message.contains(path) == true, "the message names the file: \(String(describing: error))")
        #expect(error?.path == path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the file is left as it was")
        #expect(try directory.listing() == listing, "no file is added or removed")
        return error
    }

    @Test("A file of random bytes fails with corrupt (SQLITE_NOTADB) and is left byte for byte as it was")
    func randomBytes() throws {
        var random = SplitMix64(seed: 42)
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) })
        try withScratchDirectory { directory in
            let error = try openDamaged(bytes, in: directory)
            #expect(error?.code == .corrupt)
            #expect(error?.sqlitePrimaryResultCode == 26)  // SQLITE_NOTADB
        }
    }

    @Test("A text file fails with corrupt and is left as it was")
    func textFile() throws {
        try withScratchDirectory { directory in
            let error = try openDamaged(Data("pending requests: none\n".utf8), in: directory)
            #expect(error?.code == .corrupt)
        }
    }

    @Test("A store truncated to a fraction of its pages fails with corrupt and is left as it was")
    func truncated() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            do {
                let store = try BackgroundStore(path: path)
                for n in 0..<200 {
                    let request = fullRequest("request.\(n)", kind: .processing, submittedAt: .seconds(n))
                    try store.apply(
                        [.savePendingRequest(news, request), .recordLaunch(news, at: .seconds(n))],
                        clock: clock
                    )
                }
            }
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
            #expect(whole.count >= 8 * 4096, "the store spans several pages")
            let error = try openDamaged(whole.prefix(whole.count / 2), in: directory)
            #expect(error?.code == .corrupt)
        }
    }

    /// Creates a store with one valid request, then runs `damage` on it with CHECK constraints
    /// and foreign keys off, as a hand edit or an old bug could.
    func storeWithRow(damagedBy damage: String, in directory: ScratchDirectory) throws -> String {
        let path = directory.file("store.sqlite")
        let request = TaskRequest(identifier: "com.example.news.refresh", kind: .appRefresh, submittedAt: .seconds(1))
        try BackgroundStore(path: path).apply(
            [.savePendingRequest(news, request), .saveAppState(news, fullState())],
            clock: clock
        )
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        try DatabaseQueue(path: path, configuration: configuration).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: damage)
        }
        return path
    }

    @Test(
        "A row that breaks the schema's rules fails load with invalidRow naming the table and the row",
        arguments: [
            ("UPDATE pending_requests SET kind = 'bogus'", "pending_requests", "unknown kind 'bogus'"),
            ("UPDATE pending_requests SET strategy = 'later'", "pending_requests", "unknown strategy 'later'"),
            ("UPDATE pending_requests SET requires_gpu = 2", "pending_requests", "requires_gpu is not 0 or 1"),
            ("UPDATE pending_requests SET submitted_unix_s = 'yesterday'", "pending_requests", "submitted_unix_s"),
            ("UPDATE apps SET budget_available_s = NULL", "apps", "budget_available_s is NULL"),
            ("UPDATE apps SET manifest_json = '{\"x\": 1}'", "apps", "manifest_json is not a manifest"),
            ("INSERT INTO launches VALUES ('com.example.ghost', 0)", "launches", "its app has no row in apps"),
        ]
    )
    func invalidRow(damage: String, table: String, problem: String) throws {
        try withScratchDirectory { directory in
            let path = try storeWithRow(damagedBy: damage, in: directory)
            let store = try BackgroundStore(path: path)
            let error = storeError { try store.load(clock: clock) }
            #expect(error?.code == .invalidRow)
            #expect(error?.message.contains("table \(table)") == true, "\(String(describing: error))")
            #expect(error?.message.contains(problem) == true, "\(String(describing: error))")
        }
    }

    @Test("An invalid row names its key: the app and the request identifier")
    func invalidRowNamesKey() throws {
        try withScratchDirectory { directory in
            let path = try storeWithRow(damagedBy: "UPDATE pending_requests SET kind = 'bogus'", in: directory)
            let error = storeError { try BackgroundStore(path: path).load(clock: clock) }
            #expect(
                error?.message.contains("bundle_id 'com.example.news', identifier 'com.example.news.refresh'") == true,
                "\(String(describing: error))"
            )
        }
    }
}
