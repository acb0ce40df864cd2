import BackgroundCore
import BackgroundStore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 14, finding 10: the store's path is never followed through a symbolic link unless the
/// caller allows it, an empty target never becomes a store, and nothing is created through a link.
@Suite("Store path: symbolic links refused, files created 0600 and never through a link")
struct StorePathTests {
    func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }

    @Test("A link to an empty file is refused, for writing and reading, and the target stays empty")
    func linkToEmptyFile() throws {
        try withScratchDirectory { directory throws in
            let target = directory.file("victim")
            _ = FileManager.default.createFile(atPath: target, contents: nil)
            let link = directory.file("store.sqlite")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let error = storeError { try BackgroundStore(path: link) }
            #expect(error?.code == .unsafePath)
            #expect(error?.message.contains("symbolic link") == true)
            #expect(error?.message.contains(link) == true)
            #expect(storeError { try BackgroundStore.openForReading(path: link) }?.code == .unsafePath)
            #expect(try size(target) == 0)
            #expect(try directory.listing() == ["store.sqlite", "victim"])
        }
    }

    @Test("A dangling link is refused and its target is not created")
    func danglingLink() throws {
        try withScratchDirectory { directory throws in
            let link = directory.file("store.sqlite")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.file("created"))
            #expect(storeError { try BackgroundStore(path: link) }?.code == .unsafePath)
            #expect(!FileManager.default.fileExists(atPath: directory.file("created")))
        }
    }

    @Test("A link to a real store opens only when links are allowed")
    func allowedLink() throws {
        try withScratchDirectory { directory throws in
            let target = directory.file("real.sqlite")
            try BackgroundStore(path: target).apply([.recordLaunch(news, at: .zero)], clock: clock)
            let link = directory.file("store.sqlite")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            #expect(storeError { try BackgroundStore(path: link) }?.code == .unsafePath)
            let store = try BackgroundStore(path: link, followsSymbolicLinks: true)
            #expect(try store.load(clock: clock) == [PersistedApp(app: news, launches: [.zero])])
            let reader = try BackgroundStore.openForReading(path: link, followsSymbolicLinks: true)
            #expect(try reader.load(clock: clock).count == 1)
        }
    }

    @Test("A link swapped in between the path check and SQLite's open is caught, for writing and reading")
    func swapAfterCheck() throws {
        try withScratchDirectory { directory throws in
            let victim = directory.file("victim.sqlite")
            try BackgroundStore(path: victim).apply([.recordLaunch(news, at: .zero)], clock: clock)
            let path = directory.file("store.sqlite")
            try BackgroundStore(path: path).checkpoint()
            let swap: @Sendable (String) -> Void = { checked in
                guard checked == path else { return }
                try? FileManager.default.removeItem(atPath: checked)
                try? FileManager.default.createSymbolicLink(atPath: checked, withDestinationPath: victim)
            }
            defer { StoreFileHooks.setBetweenCheckAndOpen(nil) }
            StoreFileHooks.setBetweenCheckAndOpen(swap)
            let error = storeError { try BackgroundStore(path: path) }
            #expect(error?.code == .unsafePath)
            #expect(error?.message.contains("SQLite opened \(victim) instead") == true, "\(String(describing: error))")

            // The real file back, then the same swap against a reader.
            StoreFileHooks.setBetweenCheckAndOpen(nil)
            try FileManager.default.removeItem(atPath: path)
            try BackgroundStore(path: path).checkpoint()
            StoreFileHooks.setBetweenCheckAndOpen(swap)
            #expect(storeError { try BackgroundStore.openForReading(path: path) }?.code == .unsafePath)
        }
    }

    @Test("A store in a directory reached through a link opens: only the file itself must not be a link")
    func linkedDirectory() throws {
        try withScratchDirectory { directory throws in
            let real = directory.file("real")
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
            let linked = directory.file("linked")
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: real)
            let path = linked + "/store.sqlite"
            try BackgroundStore(path: path).apply([.recordLaunch(news, at: .zero)], clock: clock)
            #expect(try BackgroundStore(path: path).load(clock: clock).count == 1)
            #expect(try BackgroundStore.openForReading(path: path).load(clock: clock).count == 1)
        }
    }

    @Test("A symbolic -wal or -shm file, or a directory at the path, is refused")
    func companionsAndDirectories() throws {
        for suffix in ["-wal", "-shm"] {
            try withScratchDirectory { directory throws in
                let path = directory.file("store.sqlite")
                try FileManager.default.createSymbolicLink(atPath: path + suffix, withDestinationPath: "/etc/passwd")
                let error = storeError { try BackgroundStore(path: path) }
                #expect(error?.code == .unsafePath)
                #expect(error?.message.contains(suffix) == true)
            }
        }
        try withScratchDirectory { directory throws in
            let path = directory.file("store.sqlite")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            #expect(storeError { try BackgroundStore(path: path) }?.code == .unsafePath)
        }
    }

    @Test("A new store file is created with mode 0600 whatever the umask")
    func newFileMode() throws {
        try withScratchDirectory { directory throws in
            let path = directory.file("store.sqlite")
            _ = try BackgroundStore(path: path)
            var status = stat()
            #expect(lstat(path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
        }
    }
}
