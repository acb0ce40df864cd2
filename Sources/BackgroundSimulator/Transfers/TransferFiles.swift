import BackgroundCore
import Foundation

/// The files of simulated transfers: the bodies scenario apps upload, and the downloaded files
/// handed to `urlSession(_:downloadTask:didFinishDownloadingTo:)`.
///
/// The simulator counts bytes; it does not keep them, so a file is its length. A file only the
/// simulator reads is kept in memory, as a path and a size, and is never on disk. What still
/// touches the disk is what app code may open:
///
/// - a download handed to app code installed with ``Simulator/install(_:manifest:launch:)`` is a
///   real sparse file of its length (zeros), in a directory of the simulator's own removed with
///   it (created at the first download);
/// - an upload from a file app code wrote itself is read from the disk for its size.
///
/// Scenario runs, and so the fuzzer, touch no file: their declarative apps open none, so their
/// downloads stay in memory too (`Simulator.writesDownloadedFiles`), and the bodies they upload
/// are made here. A file in memory has a path under ``memoryRoot``, which the simulator never
/// creates. The simulator checks no digest (`expectedSHA256`): the bytes it counts are zeros.
struct TransferFiles: Sendable {
    /// Where the files kept in memory are named; no such directory is ever made.
    static let memoryRoot = "/simulated-transfer-files"

    /// The lengths of the files kept in memory, by path.
    private(set) var inMemory: [String: Int64] = [:]
    /// The real directory of downloaded files, once one was written.
    private(set) var directory: String?
    private var uploads = 0

    /// A body of `bytes` bytes for a scenario app to upload: its path, in memory.
    mutating func makeUpload(bytes: Int64) -> String {
        uploads += 1
        let path = Self.memoryRoot + "/uploads/\(uploads).bin"
        inMemory[path] = max(0, bytes)
        return path
    }

    /// The size of the file an upload sends: one in memory, else a regular file on disk that can
    /// be read; `nil` if there is no such file.
    func uploadSize(at path: String) -> Int64? {
        inMemory[path] ?? Self.diskSize(at: path)
    }

    /// The file of a completed download, of its length: a real sparse file when `onDisk`, else
    /// kept in memory. `nil` for a download whose file could not be made.
    mutating func download(_ key: TransferKey, size: Int64, onDisk: Bool) -> String? {
        guard onDisk else {
            let path = Self.memoryPath(ofDownload: key)
            inMemory[path] = max(0, size)
            return path
        }
        let directory =
            self.directory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("simulator-downloads-\(UUID().uuidString)").path
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + Self.name(ofDownload: key)
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { return nil }
        try? handle.truncate(atOffset: UInt64(max(0, size)))
        try? handle.close()
        return path
    }

    /// The app has had a download's events: its file in memory goes (Apple removes the file once
    /// `didFinishDownloadingTo` returns; a real one here goes with the simulator).
    mutating func delivered(_ key: TransferKey) {
        inMemory[Self.memoryPath(ofDownload: key)] = nil
    }

    private static func name(ofDownload key: TransferKey) -> String {
        "\(key.app.bundleIdentifier)-\(key.session)-\(key.task)"
    }

    private static func memoryPath(ofDownload key: TransferKey) -> String {
        memoryRoot + "/downloads/" + name(ofDownload: key)
    }

    /// Removes the real directory, if one was made.
    func removeDirectory() {
        guard let directory else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The size of a regular file on disk that can be read, or `nil`.
    static func diskSize(at path: String) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            FileManager.default.isReadableFile(atPath: path),
            let size = attributes[.size] as? NSNumber
        else { return nil }
        return size.int64Value
    }
}
