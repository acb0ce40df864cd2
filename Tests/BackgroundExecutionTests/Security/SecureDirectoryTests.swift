import BackgroundExecution
import BackgroundPosix
import Foundation
import Testing

/// The directory checks the control channel and the reports use (and the daemon will), driven
/// deterministically: a hook between the check of one component and the opening of the next
/// swaps the path for a symbolic link at exactly the wrong moment.
@Suite("Security: SecureDirectory walks without following links", .serialized)
struct SecureDirectoryTests {
    @Test("A component swapped for a link between the check of its parent and its opening is refused")
    func swapDuringTheWalk() throws {
        let scratch = try Scratch()
        let target = scratch.child("a/b")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        chmod(scratch.child("a"), 0o700)
        chmod(target, 0o700)
        let elsewhere = scratch.child("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        chmod(elsewhere, 0o700)
        let parent = scratch.child("a")
        SecureDirectory.setWalkHook { checked in
            guard checked == parent else { return }
            try? FileManager.default.moveItem(atPath: target, toPath: target + ".real")
            try? FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: elsewhere)
        }
        defer { SecureDirectory.setWalkHook(nil) }
        #expect {
            _ = try SecureDirectory.open(target, creating: false)
        } throws: { error in
            "\(error)" == "\(target) is a symbolic link, not a directory"
        }
    }

    @Test("A path swapped for a link after the check changes nothing: files land in the checked directory")
    func swapAfterTheCheck() throws {
        let scratch = try Scratch()
        let path = scratch.child("reports")
        let directory = try SecureDirectory.open(path, access: .ownerWritable)
        let elsewhere = scratch.child("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        try directory.writeAtomically("report.txt", Array("text".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        #expect(try String(contentsOfFile: path + ".moved/report.txt", encoding: .utf8) == "text")
        #expect(mode(of: path + ".moved/report.txt") == 0o600)
    }

    @Test("An existing file or link at the file's name is replaced, never written through")
    func writeNeverFollowsALink() throws {
        let scratch = try Scratch()
        let directory = try SecureDirectory.open(scratch.child("d"))
        let victim = scratch.child("victim")
        try "keep".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: scratch.child("d/out"), withDestinationPath: victim)
        try directory.writeAtomically("out", Array("new".utf8))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect(try String(contentsOfFile: scratch.child("d/out"), encoding: .utf8) == "new")
    }

    @Test("Relative paths, '..', control characters and names that leave the directory are refused")
    func unsafePaths() throws {
        for path in ["relative/dir", "/tmp/../etc", "/tmp/a\nb", "/"] {
            #expect(throws: SecureDirectoryError.self, "\(path)") { try SecureDirectory.open(path, creating: false) }
        }
        let scratch = try Scratch()
        let directory = try SecureDirectory.open(scratch.child("d"))
        for name in ["", ".", "..", "a/b"] {
            #expect(throws: SystemCallError.self, "\(name)") { try directory.writeAtomically(name, [1]) }
        }
    }

    @Test("Missing components are created 0700; a file in the way is named as such")
    func createsPrivateDirectories() throws {
        let scratch = try Scratch()
        _ = try SecureDirectory.open(scratch.child("x/y/z"))
        for path in ["x", "x/y", "x/y/z"] { #expect(mode(of: scratch.child(path)) == 0o700, "\(path)") }
        try "".write(toFile: scratch.child("file"), atomically: true, encoding: .utf8)
        #expect {
            _ = try SecureDirectory.open(scratch.child("file/sub"))
        } throws: { error in
            "\(error)" == "\(scratch.child("file")) is a regular file, not a directory"
        }
    }
}
