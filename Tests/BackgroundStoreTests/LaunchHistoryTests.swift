import BackgroundCore
import BackgroundStore
import GRDB
import Testing

@Suite("Launch history")
struct LaunchHistoryTests {
    @Test("Launches are pruned to the newest 500 per app in the batch that adds them")
    func prunedTo500() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            let store = try BackgroundStore(path: path)
            #expect(store.launchLimit == 500)
            let launches = (0..<620).map { Instant.seconds($0 * 60) }
            try store.apply(launches[..<400].map { .recordLaunch(news, at: $0) }, clock: clock)
            try store.apply(launches[400...].map { .recordLaunch(news, at: $0) }, clock: clock)
            try store.apply([.recordLaunch(notes, at: .zero)], clock: clock)

            let apps = try store.load(clock: clock)
            #expect(apps.first { $0.app == news }?.launches == Array(launches.suffix(500)))
            #expect(apps.first { $0.app == notes }?.launches == [.zero])
            // The rows are gone from the file, not only from what load returns.
            let rows = try DatabaseQueue(path: path).read { db in
                try Int.fetchOne(
                    db,
                    sql: "SELECT count(*) FROM launches WHERE bundle_id = ?",
                    arguments: [news.bundleIdentifier]
                )
            }
            #expect(rows == 500)
        }
    }

    @Test("A single batch with more launches than the limit keeps the newest ones")
    func oneBigBatch() throws {
        let store = try BackgroundStore.inMemory(launchLimit: 3)
        try store.apply((1...10).map { .recordLaunch(news, at: .seconds($0)) }, clock: clock)
        #expect(try store.load(clock: clock).first?.launches == [.seconds(8), .seconds(9), .seconds(10)])
    }
}
