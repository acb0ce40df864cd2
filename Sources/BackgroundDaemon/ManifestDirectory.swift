import BackgroundCore
import BackgroundExecution
import BackgroundManifest
import BackgroundPosix
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The apps installed in the daemon: one manifest file per app in a directory.
///
/// Each regular file not starting with `.` is a manifest: an `Info.plist` (XML or binary) or a
/// JSON document with the same keys, read by the package's manifest loader, plus an optional
/// `BackgroundLaunch` dictionary (``LaunchCommand``). Files are opened with `O_NOFOLLOW`
/// relative to the checked directory; links, directories and files owned by another user are
/// refused, and so is a manifest whose executable another user could replace
/// (``ExecutableTrust``). A bad manifest is reported by its file name and the others still load; two files
/// naming the same bundle identifier are both refused (the daemon cannot tell which is meant).
public struct ManifestDirectory: Sendable {
    /// A manifest that was not loaded.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The file's name.
        public var file: String
        /// Why it was not loaded.
        public var reason: String

        public var description: String { "\(file): \(reason)" }
    }

    /// The apps loaded, ordered by bundle identifier.
    public var apps: [InstalledApp]
    /// The files that were not loaded, ordered by name.
    public var problems: [Problem]

    /// Loads every manifest in `path` (created `0700` if missing).
    ///
    /// - Throws: ``DaemonError`` if the directory itself is unsafe or unreadable.
    public static func load(from path: String) throws(DaemonError) -> ManifestDirectory {
        let directory: SecureDirectory
        do {
            directory = try SecureDirectory.open(path, access: .ownerWritable)
        } catch {
            throw DaemonError(.unsafeDirectory, "manifests directory \(error)")
        }
        let names: [String]
        do {
            names = try directory.entries()
        } catch {
            throw DaemonError(.unsafeDirectory, "manifests directory \(path): \(error)")
        }
        var loaded: [InstalledApp] = []
        var problems: [Problem] = []
        for name in names where !name.hasPrefix(".") {
            do {
                loaded.append(try read(name, in: directory))
            } catch {
                problems.append(Problem(file: name, reason: error.description))
            }
        }
        var byApp: [AppID: [InstalledApp]] = [:]
        for app in loaded { byApp[app.id, default: []].append(app) }
        var apps: [InstalledApp] = []
        for (id, group) in byApp {
            if group.count == 1 {
                apps.append(group[0])
            } else {
                for app in group {
                    problems.append(Problem(file: app.file, reason: "\(id) is also installed by another manifest"))
                }
            }
        }
        apps.sort { $0.id.bundleIdentifier < $1.id.bundleIdentifier }
        problems.sort { ($0.file, $0.reason) < ($1.file, $1.reason) }
        return ManifestDirectory(apps: apps, problems: problems)
    }

    /// One manifest, read through the directory's descriptor.
    static func read(_ name: String, in directory: SecureDirectory) throws(DaemonError) -> InstalledApp {
        let data = try contents(of: name, in: directory)
        let manifest: AppManifest
        do {
            manifest = try AppManifest(data: data)
        } catch {
            throw DaemonError(.badManifest, error.description)
        }
        let launch = try LaunchCommandReader.launchCommand(in: data)
        if let executable = launch?.executable,
            let problem = ExecutableTrust.problem(
                of: executable,
                daemonUID: SystemCall.effectiveUserID,
                missingIsAllowed: true
            )
        {
            throw DaemonError(.badManifest, "names an executable that is not safe to run: \(problem)")
        }
        return InstalledApp(manifest: manifest, launch: launch, file: name)
    }

    private static func contents(of name: String, in directory: SecureDirectory) throws(DaemonError) -> Data {
        let file: Int32
        do {
            file = try SystemCall.openAt(directory.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            throw DaemonError(.badManifest, "cannot be opened: \(error.reason) (a link is never followed)")
        }
        defer { SystemCall.close(file) }
        let status: stat
        do {
            status = try SystemCall.status(of: file)
        } catch {
            throw DaemonError(.badManifest, "cannot be read: \(error.reason)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw DaemonError(.badManifest, "is not a regular file") }
        guard status.st_uid == SystemCall.effectiveUserID || status.st_uid == 0 else {
            throw DaemonError(.badManifest, "is owned by uid \(status.st_uid), not by this user or root")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw DaemonError(
                .badManifest,
                "can be written by other users (mode \(String(status.st_mode & 0o777, radix: 8)))"
            )
        }
        let limit = AppManifest.maximumManifestSize
        guard status.st_size <= limit else {
            throw DaemonError(.badManifest, "is \(status.st_size) bytes; a manifest may have at most \(limit)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try SystemCall.read(file, into: buffer) }
            }
            guard case .success(let count) = result else {
                if case .failure(let error) = result {
                    throw DaemonError(.badManifest, "cannot be read: \(error.reason)")
                }
                return Data()
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        guard bytes.count <= limit else { throw DaemonError(.badManifest, "is larger than \(limit) bytes") }
        return Data(bytes)
    }
}
