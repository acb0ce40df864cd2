import BackgroundCore

#if canImport(Glibc)
import Glibc
#endif

extension TransferContainer {
    /// The regular files in the session directories of `Transfers/` last written before
    /// `unixSeconds`, as paths relative to the root, sorted. Symbolic links and anything but
    /// regular files are skipped, and nothing below is followed.
    func partialFiles(writtenBefore unixSeconds: Double) -> [String] {
        let top = Self.transfersDirectory
        guard let transfers = try? openDirectory([top], creating: false, for: top) else { return [] }
        defer { close(transfers) }
        var found: [String] = []
        for session in Self.names(in: transfers) {
            let directory = openat(transfers, session, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard directory >= 0 else { continue }
            defer { close(directory) }
            for name in Self.names(in: directory) {
                var status = stat()
                guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG,
                    Double(status.st_mtim.tv_sec) < unixSeconds
                else { continue }
                found.append("\(top)/\(session)/\(name)")
            }
        }
        return found.sorted()
    }

    /// The names in an open directory, without `.` and `..` (the descriptor stays open).
    private static func names(in directory: Int32) -> [String] {
        let copy = dup(directory)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
