import BackgroundExecution
import Foundation
import Testing

/// `.record` is for tests and demos: its reports stay in memory unless a directory is given.
@Suite("A recording system writes nothing outside what it is given")
struct RecordingWritesNothingTests {
    static func reportFiles(in directory: URL?) -> Set<String> {
        guard let directory else { return [] }
        return Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
    }

    @Test("The README's test snippet: the watchdog's report is kept in memory, no file is written")
    @MainActor
    func readmeSnippet() throws {
        let before = Self.reportFiles(in: EmbeddedSystem.defaultReportsDirectory)
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                printsReportsToStandardError: false
            )
        )
        #expect(system.configuration.reportsDirectory == nil)
        let app = UIApplication(connection: system)
        _ = app.beginBackgroundTask(withName: "Upload") {}
        system.moveToBackground()
        clock.advance(by: .seconds(31))
        #expect(system.terminationReports.last?.code == .watchdogTimeout)
        #expect(Self.reportFiles(in: EmbeddedSystem.defaultReportsDirectory) == before)
    }

    @Test("Given a directory, .record writes its reports there; the process-ending default keeps its directory")
    @MainActor
    func explicitDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: directory,
                printsReportsToStandardError: false
            )
        )
        let app = UIApplication(connection: system)
        _ = app.beginBackgroundTask(withName: "Upload") {}
        system.moveToBackground()
        clock.advance(by: .seconds(31))
        #expect(Self.reportFiles(in: directory).count == 2)
        let ending = EmbeddedSystem.Configuration(terminationBehavior: .exitProcess)
        #expect(ending.reportsDirectory == EmbeddedSystem.defaultReportsDirectory)
    }
}
