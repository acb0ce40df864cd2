import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Removes a cgroup a test made and everything under it, bottom-up: a test that ends, passing
/// or not, leaves no cgroup behind (a cgroup is a directory that `rmdir` removes only once it
/// has no child cgroup and no process).
///
/// Processes still inside are killed first (`cgroup.kill`, else SIGKILL of each member) and
/// waited for, at most `seconds` in all; what cannot be removed stays and is returned.
///
/// - Returns: The cgroups left behind (not removable), deepest first; empty when all went.
@discardableResult
public func removeCgroupTree(_ path: String, waitingAtMost seconds: Double = 10) -> [String] {
    let deadline = Date().addingTimeInterval(seconds)
    var left: [String] = []
    removeCgroupTree(path, until: deadline, leaving: &left)
    return left
}

private func removeCgroupTree(_ path: String, until deadline: Date, leaving left: inout [String]) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return }
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    for entry in entries.sorted() {
        var childIsDirectory: ObjCBool = false
        let child = path + "/" + entry
        if FileManager.default.fileExists(atPath: child, isDirectory: &childIsDirectory), childIsDirectory.boolValue {
            removeCgroupTree(child, until: deadline, leaving: &left)
        }
    }
    func members() -> [pid_t] {
        let procs = (try? String(contentsOfFile: path + "/cgroup.procs", encoding: .utf8)) ?? ""
        return procs.split(separator: "\n").compactMap { pid_t($0) }
    }
    if !members().isEmpty {
        if (try? "1".write(toFile: path + "/cgroup.kill", atomically: false, encoding: .utf8)) == nil {
            for pid in members() { kill(pid, SIGKILL) }
        }
    }
    while rmdir(path) != 0 {
        guard errno == EBUSY, Date() < deadline else {
            left.append(path)
            return
        }
        usleep(10_000)
    }
}
