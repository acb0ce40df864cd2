#if canImport(Glibc)
import Glibc
#endif

/// Finds the file locks a set of processes holds on files under shared directories.
///
/// For each process, each open descriptor whose file lies under a shared directory is read in
/// `/proc/<pid>/fdinfo/<fd>`: its `lock:` lines are the `/proc/locks` entries held through
/// that open file description (flock and open-file-description locks, which `/proc/locks`
/// shows with pid -1) or by that process on that file (POSIX locks). This is matching by
/// device and inode against the app's open files, done by the kernel, and it is exact: an app
/// that merely has a shared database open while another app holds its lock is not blamed, as
/// it would be by matching `/proc/locks` by inode alone.
enum LockScanner {
    /// The locks `pids` hold on files under `sharedDirectories`, without duplicates (a flock
    /// held through a descriptor shared by a parent and its child is one lock), sorted.
    static func locks(heldBy pids: [pid_t], under sharedDirectories: [String]) -> [HeldLock] {
        let roots = sharedDirectories.map(canonical).filter { $0 != "/" && !$0.isEmpty }
        guard !roots.isEmpty else { return [] }
        var found = Set<HeldLock>()
        for pid in pids {
            for file in ProcFileSystem.openFiles(of: pid) where isUnder(file.path, roots) {
                let lines = file.info.split(separator: "\n").filter { $0.hasPrefix("lock:") }
                let table = LockTable(
                    parsing: lines.map { String($0.dropFirst(5).drop { $0 == "\t" || $0 == " " }) }.joined(
                        separator: "\n"
                    )
                )
                for entry in table.entries {
                    found.insert(
                        HeldLock(
                            path: file.path,
                            kind: entry.kind,
                            access: entry.access,
                            start: entry.start,
                            end: entry.end,
                            pid: entry.pid,
                            inode: entry.inode
                        )
                    )
                }
            }
        }
        return found.sorted {
            ($0.path, $0.kind.rawValue, $0.start, $0.pid ?? -1) < ($1.path, $1.kind.rawValue, $1.start, $1.pid ?? -1)
        }
    }

    /// Whether `path` is a shared directory or lies below one.
    static func isUnder(_ path: String, _ roots: [String]) -> Bool {
        roots.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// The directory's path with links resolved (the kernel names open files that way), or the
    /// path as given, without a trailing `/`, if it cannot be resolved.
    static func canonical(_ directory: String) -> String {
        var resolved = directory
        if let pointer = realpath(directory, nil) {
            resolved = String(cString: pointer)
            free(pointer)
        }
        while resolved.count > 1 && resolved.hasSuffix("/") { resolved.removeLast() }
        return resolved
    }
}
