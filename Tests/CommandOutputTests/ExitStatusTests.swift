import CommandOutput
import Foundation
import Testing

@Suite("The one exit-code table")
struct ExitStatusTests {
    @Test("The numbers are the project's table, which other commands code against")
    func numbers() {
        let table = Dictionary(uniqueKeysWithValues: ExitStatus.allCases.map { ($0.rawValue, $0) })
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 64, 65, 66, 69, 70, 73, 74, 75, 77])
        #expect(table[0] == .success)
        #expect(table[1] == .negativeAnswer)
        #expect(table[2] == .doctorErrors)
        #expect(table[64] == .usage)
        #expect(table[65] == .badInput)
        #expect(table[66] == .inputMissing)
        #expect(table[69] == .unavailable)
        #expect(table[70] == .internalError)
        #expect(table[73] == .cannotCreateOutput)
        #expect(table[74] == .ioError)
        #expect(table[75] == .timedOut)
        #expect(table[77] == .permissionDenied)
    }

    @Test("docs/exit-codes.md shows exactly this table")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/exit-codes.md"), encoding: .utf8)
        #expect(page.contains(ExitStatus.markdownTable))
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("docs/exit-codes.md"))
    }

    @Test("Names are distinct words for JSON")
    func names() {
        #expect(Set(ExitStatus.allCases.map(\.name)).count == ExitStatus.allCases.count)
    }
}
