import BackgroundCore
import BackgroundManifest
import Foundation

/// Loads the manifest the way the project always does (``AppManifest/init(contentsOf:)``: XML
/// or binary property list, or JSON), but turns a key of the wrong type into a finding and goes
/// on without that key, so one mistake does not hide the others.
enum ManifestInput {
    /// The manifest, and a ``DoctorRule/manifestWrongType`` finding per key of the wrong type.
    static func load(_ path: String) throws(DoctorError) -> (manifest: AppManifest, findings: [Finding]) {
        do {
            return (try AppManifest(contentsOf: URL(filePath: path)), [])
        } catch let error where error.code == .wrongType && error.key != nil {
            return try recover(path, first: error)
        } catch {
            throw DoctorError(error.code == .unreadable ? .inputMissing : .badInput, error.description)
        }
    }

    /// Drops each key of the wrong type in turn (at most a few: the manifest reads three keys).
    private static func recover(_ path: String, first: ManifestError) throws(DoctorError) -> (AppManifest, [Finding]) {
        guard let data = FileManager.default.contents(atPath: path),
            data.count <= AppManifest.maximumManifestSize
        else { throw DoctorError(.inputMissing, "\(path): cannot be read") }
        let format = ManifestFormat.detect(in: data)
        guard var dictionary = parse(data, format) else { throw DoctorError(.badInput, first.description) }
        var findings: [Finding] = []
        var error = first
        for _ in 0..<4 {
            guard let key = error.key else { break }
            let topLevel = String(key.prefix { $0 != "[" })
            findings.append(finding(for: error, key: topLevel, file: path))
            dictionary[topLevel] = nil
            guard let rewritten = serialize(dictionary, format) else { break }
            do {
                return (try AppManifest(data: rewritten), findings)
            } catch let next where next.code == .wrongType && next.key != nil {
                error = next
            } catch {
                throw DoctorError(.badInput, "\(path): \(error.description)")
            }
        }
        throw DoctorError(.badInput, "\(path): \(error.description)")
    }

    private static func finding(for error: ManifestError, key: String, file: String) -> Finding {
        let what = key == "CFBundleIdentifier" ? "a string" : "an array of strings"
        return Finding(
            .manifestWrongType,
            "\(key) \(error.key == key ? "" : "(at \(error.key ?? key)) ")has the wrong type: \(error.problem)",
            fix: "write \(key) as \(what), for example <key>\(key)</key><array><string>…</string></array>",
            at: position(of: key, in: file)
        )
    }

    /// Where a value (a key or a string) is written in a text manifest (XML or JSON): its line and
    /// column; line 1 for a binary property list or a value not found.
    static func position(of value: String, in path: String) -> SourcePosition {
        let text = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let range = line.range(of: ">\(value)<") ?? line.range(of: "\"\(value)\"") {
                let column = line.distance(from: line.startIndex, to: range.lowerBound) + 2
                return SourcePosition(file: path, line: index + 1, column: column)
            }
        }
        return SourcePosition(file: path, line: 1, column: 1)
    }

    private static func parse(_ data: Data, _ format: ManifestFormat) -> [String: Any]? {
        if format == .json { return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] }
        return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any]
    }

    private static func serialize(_ dictionary: [String: Any], _ format: ManifestFormat) -> Data? {
        if format == .json { return try? JSONSerialization.data(withJSONObject: dictionary) }
        return try? PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
    }
}
