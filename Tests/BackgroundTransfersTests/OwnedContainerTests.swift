import BackgroundTransfers
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Another user's container (``TransferContainer/init(root:owner:)``), as `backgroundd` running
/// as root opens an app's under per-app uids: what the engine makes is the app's, and a file or
/// directory the app does not own (a hard link to root's file) is neither read nor written.
@Suite("A container of another user", .enabled(if: geteuid() == 0, "needs root to give files away"))
struct OwnedContainerTests {
    static let owner = TransferContainer.Owner(uid: 4_242_424, gid: 4_242_424)

    /// A container `0700` owned by ``owner`` in a fresh directory.
    static func container() throws -> (TransferContainer, String) {
        let directory = FileManager.default.temporaryDirectory.path + "/owned-\(UUID().uuidString)"
        let root = directory + "/container"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(chmod(root, 0o700) == 0 && chown(root, owner.uid, owner.gid) == 0)
        return (try TransferContainer(root: root, owner: owner), directory)
    }

    static func ownerUID(_ path: String) -> UInt32? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_uid : nil
    }

    @Test("directories and files the engine makes belong to the app's uid")
    func madeFilesAreTheOwners() throws {
        let (container, directory) = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let descriptor = try container.openForWriting("Transfers/body.part", truncating: true)
        #expect(write(descriptor, "abc", 3) == 3)
        close(descriptor)
        #expect(Self.ownerUID(container.root + "/Transfers") == Self.owner.uid)
        #expect(Self.ownerUID(container.root + "/Transfers/body.part") == Self.owner.uid)
        // Opened again (a resume): still the owner's, and readable.
        close(try container.openForWriting("Transfers/body.part", truncating: false))
        close(try container.openForReading("Transfers/body.part"))
        #expect(container.size(of: "Transfers/body.part") == 3)
    }

    @Test("a file the app does not own is neither uploaded nor written, a hard link to root's file included")
    func foreignFilesAreRefused() throws {
        let (container, directory) = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secret = directory + "/secret"
        #expect(FileManager.default.createFile(atPath: secret, contents: Data("root's".utf8)))
        #expect(link(secret, container.root + "/linked") == 0)
        #expect(throws: TransferContainerError.self) { try container.openForReading("linked") }
        #expect(throws: TransferContainerError.self) { try container.openForWriting("linked", truncating: true) }
        #expect((try? String(contentsOfFile: secret, encoding: .utf8)) == "root's")
        // A directory of root's inside the container is no way in either.
        #expect(mkdir(container.root + "/Transfers", 0o755) == 0)
        #expect(throws: TransferContainerError.self) { try container.openForWriting("Transfers/x", truncating: true) }
    }

    @Test("the root must exist, be the owner's and be writable by no one else")
    func rootIsChecked() throws {
        let (container, directory) = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: TransferContainerError.self) {
            try TransferContainer(root: directory + "/missing", owner: Self.owner)
        }
        #expect(throws: TransferContainerError.self) {
            try TransferContainer(root: container.root, owner: .init(uid: Self.owner.uid + 1, gid: Self.owner.gid))
        }
        #expect(chmod(container.root, 0o777) == 0)
        #expect(throws: TransferContainerError.self) { try TransferContainer(root: container.root, owner: Self.owner) }
    }
}
