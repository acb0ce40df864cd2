import BackgroundExecution
import CommandOutput
import Foundation

/// `bgctl why --bundle file.json`: one report for a bug tracker.
///
/// It gathers the manifest, the doctor's findings (from `bgctl-doctor`, when it is built), the
/// pending requests with their explanations and history, the device's conditions and recorded
/// intervals, and recent termination reports. No personal data beyond identifiers: request
/// titles and subtitles (user-visible text) are left out, and files are named, never given
/// with their paths.
struct WhyBundle {
    var subject: ExplainedSystem
    var manifest: String?
    var sources: [String]
    var reports: String?

    /// The most termination reports included (newest first).
    static let reportLimit = 10

    func write(to path: String) throws {
        let data: Data
        do {
            data = try JSONSerialization.data(
                withJSONObject: try document(),
                options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            )
        } catch {
            throw CommandFailure(.internalError, path, "cannot encode the bundle: \(error)")
        }
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw CommandFailure(.cannotCreateOutput, path, "cannot create the file")
        }
    }

    func document() throws -> [String: Any] {
        let system = subject.system
        let app = subject.app
        let explanations = system.explainedIdentifiers(of: app).compactMap {
            system.explanation(of: app, identifier: $0, at: subject.now)?.redacted
        }
        return [
            "format": "bgctl-why-bundle",
            "formatVersion": 1,
            "source": subject.sourceName,
            "app": app.bundleIdentifier,
            "timelineOrigin": subject.format(.zero),
            "now": subject.now.seconds,
            "nowDate": subject.format(subject.now),
            "manifest": try encoded(subject.manifest) ?? NSNull(),
            "doctor": doctorFindings(),
            "device": [
                "conditions": try encoded(system.currentDevice) ?? NSNull(),
                "intervals": try encoded(system.decisionHistory.device) ?? [],
            ],
            "requests": try encoded(explanations) ?? [],
            "terminationReports": try terminationReports(),
            "privacy": "identifiers only: request titles and subtitles are left out, files are named without paths",
        ]
    }

    private func encoded(_ value: (some Encodable)?) throws -> Any? {
        guard let value else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONSerialization.jsonObject(with: encoder.encode(value), options: .fragmentsAllowed)
    }

    /// The doctor's JSON report, run on `--manifest`/`--sources` or on the manifest the system holds.
    private func doctorFindings() -> Any {
        let doctor = DoctorLauncher.siblingExecutable()
        guard FileManager.default.isExecutableFile(atPath: doctor.path) else {
            return ["unavailable": "bgctl-doctor is not built (swift build --product bgctl-doctor)"]
        }
        var arguments = ["--json"]
        var scratch: URL?
        if let manifest {
            arguments += ["--manifest", manifest]
        } else if let held = subject.manifest, let data = try? JSONEncoder().encode(held) {
            let file = FileManager.default.temporaryDirectory.appending(path: "bgctl-why-\(UUID().uuidString).json")
            guard
                FileManager.default.createFile(
                    atPath: file.path,
                    contents: data,
                    attributes: [.posixPermissions: 0o600]
                )
            else { return ["unavailable": "cannot write the manifest for the doctor"] }
            scratch = file
            arguments += ["--manifest", file.path]
        }
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        if !sources.isEmpty { arguments += ["--sources"] + sources }
        guard arguments.count > 1 else { return ["unavailable": "no manifest and no sources to examine"] }
        let result = DoctorLauncher.capture(doctor, arguments)
        guard let output = result, let object = try? JSONSerialization.jsonObject(with: output) as? [String: Any],
            let report = object["report"] as? [String: Any]
        else { return ["unavailable": "bgctl-doctor gave no report"] }
        var cleaned = report
        cleaned["manifest"] = (report["manifest"] as? String).map { URL(filePath: $0).lastPathComponent }
        cleaned["findings"] = (report["findings"] as? [[String: Any]])?.map(Self.withoutPaths)
        return cleaned
    }

    /// A finding with its file reduced to the file's name.
    private static func withoutPaths(_ finding: [String: Any]) -> [String: Any] {
        var finding = finding
        if var position = finding["position"] as? [String: Any], let file = position["file"] as? String {
            position["file"] = URL(filePath: file).lastPathComponent
            finding["position"] = position
        }
        return finding
    }

    /// The system's reports (the simulator's), then the newest `<app>-*.json` files in `--reports`.
    private func terminationReports() throws -> [Any] {
        var found: [Any] = try subject.reports.suffix(Self.reportLimit).compactMap { try encoded($0) }
        guard let reports else { return found }
        let prefix = subject.app.bundleIdentifier + "-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []
        for name in names.filter({ $0.hasPrefix(prefix) && $0.hasSuffix(".json") }).sorted().suffix(Self.reportLimit) {
            let url = URL(filePath: reports).appending(path: name)
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            defer { try? handle.close() }
            guard let data = try? handle.read(upToCount: 1 << 20),
                let object = try? JSONSerialization.jsonObject(with: data)
            else { continue }
            found.append(object)
        }
        return found
    }
}

extension RequestExplanation {
    /// Without user-visible text: request titles and subtitles are emptied.
    var redacted: RequestExplanation {
        var copy = self
        copy.eligibility?.request.title = ""
        copy.eligibility?.request.subtitle = ""
        for index in copy.whatIfs.indices {
            copy.whatIfs[index].eligibility.request.title = ""
            copy.whatIfs[index].eligibility.request.subtitle = ""
        }
        return copy
    }
}
