import BackgroundDoctor
import Foundation

/// The fixture apps in `Fixtures/`: manifests and sources written the way real apps write them.
enum DoctorFixtures {
    static let directory = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Fixtures")

    /// The fixture's manifest (`Info.plist` or `Info.json`), if it has one.
    static func manifest(_ name: String) -> String? {
        for file in ["Info.plist", "Info.json"] {
            let path = directory.appending(path: name).appending(path: file).path
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return nil
    }

    static func sources(_ name: String) -> String { directory.appending(path: name).path }

    /// Examines a fixture: its manifest and every Swift file in its folder.
    static func examine(_ name: String, ignoring: Set<String> = []) throws -> DoctorReport {
        try Doctor.examine(manifest: manifest(name), sources: [sources(name)], ignoring: ignoring)
    }

    /// Each finding as `RULE file:line`, in report order.
    static func summary(_ report: DoctorReport) -> [String] {
        report.findings.map { finding in
            let place = finding.position.map { "\(URL(filePath: $0.file).lastPathComponent):\($0.line)" } ?? "-"
            return "\(finding.rule.id) \(place)"
        }
    }
}
