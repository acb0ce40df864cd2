import ArgumentParser
import CommandOutput
import Foundation
import Testing

struct Answer: CommandResult {
    var identifier: String
    var when: Date
    var text: String { "\(identifier) runs at \(when.timeIntervalSince1970)\n" }
}

@Suite("Text by default, JSON with --json, paths checked before the work")
struct OutputTests {
    @Test("--json prints the same answer as one JSON document with ISO 8601 dates")
    func json() throws {
        let answer = Answer(identifier: "com.example.refresh", when: Date(timeIntervalSince1970: 0))
        #expect(try OutputOptions.parse([]).render(answer) == "com.example.refresh runs at 0.0\n")
        let json = try OutputOptions.parse(["--json"]).render(answer)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(object == ["identifier": "com.example.refresh", "when": "1970-01-01T00:00:00Z"])
    }

    @Test("An input must be a readable file")
    func inputs() throws {
        let directory = try temporaryDirectory()
        #expect(throws: CommandFailure(.inputMissing, directory, "is a directory, not a file")) {
            try PathCheck.readableFile(directory)
        }
        #expect(throws: CommandFailure(.inputMissing, directory + "/missing.json", "No such file or directory")) {
            try PathCheck.readableFile(directory + "/missing.json")
        }
        _ = FileManager.default.createFile(atPath: directory + "/ok.json", contents: Data("{}".utf8))
        try PathCheck.readableFile(directory + "/ok.json")
    }

    @Test("An output must be creatable before the work starts")
    func outputs() throws {
        let directory = try temporaryDirectory()
        try PathCheck.creatableFile(directory + "/timeline.html")
        #expect(throws: CommandFailure(.cannotCreateOutput, directory, "is a directory, not a file")) {
            try PathCheck.creatableFile(directory)
        }
        let missingParent = directory + "/no/such/timeline.html"
        do {
            try PathCheck.creatableFile(missingParent)
            Issue.record("a file in a missing directory was accepted")
        } catch {
            #expect(error.status == .cannotCreateOutput)
            #expect(error.description.hasPrefix("\(missingParent): the directory \(directory)/no/such does not exist"))
        }
        _ = FileManager.default.createFile(atPath: directory + "/plain", contents: Data())
        #expect(
            throws: CommandFailure(.cannotCreateOutput, directory + "/plain/x", "\(directory)/plain is not a directory")
        ) {
            try PathCheck.creatableFile(directory + "/plain/x")
        }
        let created = try PathCheck.creatableDirectory(directory + "/a/b")
        var isDirectory: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: created.path, isDirectory: &isDirectory) && isDirectory.boolValue
        )
        #expect(throws: CommandFailure.self) { try PathCheck.creatableDirectory(directory + "/plain/sub") }
        // A directory that cannot be made is output that cannot be created (73), whatever the
        // errno: under /proc mkdir gives ENOENT, which alone would read as input missing (66).
        do {
            _ = try PathCheck.creatableDirectory("/proc/nope")
            Issue.record("a directory under /proc was made")
        } catch {
            #expect(error.status == .cannotCreateOutput, "\(error)")
            #expect(error.description.hasPrefix("/proc/nope: "), "\(error)")
        }
    }

    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("command-output-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
