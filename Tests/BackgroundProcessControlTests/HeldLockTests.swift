import BackgroundProcessControl
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The locks behind `0xdead10cc`, read from real processes holding real locks.
@Suite("Locks held at suspension: flock, POSIX and OFD locks in shared containers, and nothing else")
struct HeldLockTests {
    @Test("the three kinds of lock in the shared directory count; one outside it does not", arguments: [true, false])
    func locksInSharedContainer(cgroups: Bool) async throws {
        guard let controller = try cgroups ? AppFixture.cgroupController() : AppFixture.signalController() else {
            return
        }
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let shared = container.appendingPathComponent("group.com.example")
        let own = container.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        let steps = [
            "lock", "flock", shared.appendingPathComponent("a.lock").path,
            "lock", "posix", shared.appendingPathComponent("b.sqlite").path,
            "lock", "ofd", shared.appendingPathComponent("c.sqlite").path,
            "lock", "flock", own.appendingPathComponent("private.lock").path,
            "fork", "ready", "sleep", "forever",
        ]
        let (app, socket) = try AppFixture.start(controller, steps, in: container)
        defer { close(socket) }
        _ = try await AppFixture.readChild(socket)  // it shares the flock and the OFD lock
        #expect(await AppFixture.readLine(socket) == "ready")
        let locks = try controller.locksHeld(by: app, under: [shared.path])
        #expect(locks.map(\.path) == ["a.lock", "b.sqlite", "c.sqlite"].map { shared.appendingPathComponent($0).path })
        #expect(locks.map(\.kind) == [.flock, .posix, .openFileDescription])
        #expect(locks.allSatisfy { $0.access == .write && $0.start == 0 && $0.end == nil })
        #expect(locks.map(\.pid) == [app.pid, app.pid, nil], "OFD locks have no owning pid")
        let inode = try FileManager.default.attributesOfItem(atPath: locks[1].path)[.systemFileNumber] as? UInt64
        #expect(locks[1].inode == inode)
        #expect(try controller.locksHeld(by: app, under: [own.path]).map(\.kind) == [.flock])
        #expect(try controller.locksHeld(by: app, under: [container.appendingPathComponent("elsewhere").path]).isEmpty)
        // The same directory named through a symbolic link is the same directory.
        let link = container.appendingPathComponent("link-to-group")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: shared)
        #expect(try controller.locksHeld(by: app, under: [link.path]).count == 3)
        await AppFixture.finish(controller, app)
    }

    @Test("an app that only has a shared file open is not blamed for another app's lock on it")
    func anotherAppsLockIsNotOurs() async throws {
        let controller = try AppFixture.signalController()
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let database = container.appendingPathComponent("shared.sqlite").path
        let (holder, holderSocket) = try AppFixture.start(
            controller,
            ["lock", "ofd", database, "ready", "sleep", "forever"],
            in: container
        )
        defer { close(holderSocket) }
        let (reader, readerSocket) = try AppFixture.start(
            controller,
            ["open", database, "ready", "sleep", "forever"],
            in: container
        )
        defer { close(readerSocket) }
        #expect(await AppFixture.readLine(holderSocket) == "ready")
        #expect(await AppFixture.readLine(readerSocket) == "ready")
        #expect(try controller.locksHeld(by: reader, under: [container.path]).isEmpty)
        #expect(try controller.locksHeld(by: holder, under: [container.path]).map(\.kind) == [.openFileDescription])
        await AppFixture.finish(controller, holder)
        await AppFixture.finish(controller, reader)
    }
}
