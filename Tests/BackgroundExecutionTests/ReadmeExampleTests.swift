import BackgroundTestSupport
import Foundation
import Testing

/// The README's examples are the programs in `examples/`, compiled with the package; these
/// tests check the README shows them as they are, and run them as a user would: start, SIGTERM
/// mid-export, and the export still finishes before the process exits 0.
///
/// Real clock by design (about 2 s each): the examples are real services.
@Suite("The README's examples, as written, compiled and run")
struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The ```swift block that follows `<!-- example: <path> -->` in the README.
    static func readmeBlock(after path: String) throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- example: \(path) -->\n```swift\n"
        let start = try #require(readme.range(of: marker), "the README shows \(path)")
        let end = try #require(readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex))
        return String(readme[start.upperBound..<end.lowerBound]) + "\n"
    }

    @Test(
        "The README shows each example file exactly",
        arguments: ["examples/ExportService/main.swift", "examples/ExportServiceLifecycle/main.swift"]
    )
    func readmeMatchesFiles(path: String) throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        #expect(try Self.readmeBlock(after: path) == file)
    }

    @Test(
        "SIGTERM during the export: the export finishes, then the process exits 0",
        arguments: ["ExportService", "ExportServiceLifecycle"]
    )
    func exportFinishes(executable: String) async throws {
        let result = try await runChildProcessUntilSignalled(builtExecutable(executable), after: "export step 1/8")
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("export step 8/8"), "the export was cut off: \(result.output)")
        #expect(!result.error.contains("0x8badf00d"))
    }
}
