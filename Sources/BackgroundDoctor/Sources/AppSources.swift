import Foundation
import SwiftParser
import SwiftSyntax

/// An app's Swift sources, read from files and directories and parsed with swift-syntax.
///
/// Directories are walked without following symbolic links; hidden directories and `.build`
/// are skipped. Every file is bounded (``maximumFileSize``) and so is their number.
enum AppSources {
    /// The largest Swift file read: 4 MiB.
    static let maximumFileSize = 4 << 20
    /// The most Swift files read.
    static let maximumFileCount = 20_000

    /// The `.swift` files under the given paths, sorted, as paths relative to how they were given.
    static func files(in paths: [String]) throws(DoctorError) -> [String] {
        var found: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw DoctorError(.inputMissing, "\(path): no such file or directory")
            }
            guard isDirectory.boolValue else {
                found.append(path)
                continue
            }
            guard
                let walker = manager.enumerator(
                    at: URL(filePath: path),
                    includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey],
                    options: [.skipsHiddenFiles, .skipsPackageDescendants]
                )
            else { throw DoctorError(.inputMissing, "\(path): cannot list the directory") }
            let root = URL(filePath: path).standardizedFileURL.path
            for case let url as URL in walker {
                if url.lastPathComponent == ".build" || url.lastPathComponent == "Pods" {
                    walker.skipDescendants()
                    continue
                }
                let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
                guard url.pathExtension == "swift", values?.isRegularFile == true, values?.isSymbolicLink != true
                else { continue }
                let full = url.standardizedFileURL.path
                let relative = full.hasPrefix(root + "/") ? String(full.dropFirst(root.count + 1)) : full
                found.append(path.hasSuffix("/") ? path + relative : path + "/" + relative)
            }
        }
        guard found.count <= maximumFileCount else {
            throw DoctorError(
                .badInput,
                "more than \(maximumFileCount) Swift files under \(paths.joined(separator: ", "))"
            )
        }
        return found.sorted()
    }

    /// Parses the files and gathers the facts: constants from every file first, then the calls.
    static func scan(_ files: [String]) -> SourceFacts {
        var facts = SourceFacts()
        var trees: [(String, SourceFileSyntax)] = []
        for file in files {
            switch read(file) {
            case .success(let text): trees.append((file, Parser.parse(source: text)))
            case .failure(let reason): facts.skippedFiles.append((file, reason.description))
            }
        }
        var constants = ConstantTable()
        for (_, tree) in trees {
            let collector = ConstantCollector(into: constants)
            collector.walk(tree)
            constants = collector.table
        }
        facts.constants = constants
        for (file, tree) in trees {
            let scanner = SourceScanner(file: file, tree: tree, into: facts)
            scanner.walk(tree)
            facts = scanner.facts
        }
        return facts
    }

    private static func read(_ file: String) -> Result<String, DoctorError> {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            return .failure(DoctorError(.inputMissing, "\(file): cannot be read"))
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumFileSize + 1) else {
            return .failure(DoctorError(.inputMissing, "\(file): cannot be read"))
        }
        guard data.count <= maximumFileSize else {
            return .failure(DoctorError(.badInput, "\(file): larger than \(maximumFileSize) bytes"))
        }
        return .success(String(decoding: data, as: UTF8.self))
    }
}
