import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// Where this process's cgroup v2 directory is: the cgroup2 mount in `/proc/self/mountinfo`
/// joined with the `0::` line of `/proc/self/cgroup`.
enum CgroupLocation {
    /// Why the daemon's own cgroup could not be found.
    struct Problem: Error {
        var reason: String
    }

    /// The absolute path of this process's cgroup v2 directory.
    static func ownCgroup() -> Result<String, Problem> {
        let mounts: String
        let membership: String
        do {
            mounts = try SystemCall.readFile(AT_FDCWD, "/proc/self/mountinfo")
            membership = try SystemCall.readFile(AT_FDCWD, "/proc/self/cgroup")
        } catch {
            return .failure(Problem(reason: "cannot read /proc/self: \(error)"))
        }
        guard let mount = cgroup2Mount(in: mounts) else {
            return .failure(Problem(reason: "no cgroup2 file system is mounted"))
        }
        guard let own = unifiedPath(in: membership) else {
            return .failure(Problem(reason: "/proc/self/cgroup has no cgroup v2 ('0::') line"))
        }
        var relative = own
        if mount.root != "/" {
            guard own == mount.root || own.hasPrefix(mount.root + "/") else {
                return .failure(Problem(reason: "this process's cgroup \(own) is outside the mounted \(mount.root)"))
            }
            relative = String(own.dropFirst(mount.root.count))
        }
        let joined = mount.point + (relative == "/" ? "" : relative)
        return .success(joined.isEmpty ? "/" : joined)
    }

    /// The first cgroup2 mount: its mount point and the cgroup it shows as its root.
    static func cgroup2Mount(in mountinfo: String) -> (point: String, root: String)? {
        for line in mountinfo.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count, fields.count > 4,
                fields[separator + 1] == "cgroup2"
            else { continue }
            return (unescape(fields[4]), unescape(fields[3]))
        }
        return nil
    }

    /// The path on the `0::` line of `/proc/self/cgroup`.
    static func unifiedPath(in cgroupFile: String) -> String? {
        for line in cgroupFile.split(separator: "\n") where line.hasPrefix("0::") {
            return String(line.dropFirst(3))
        }
        return nil
    }

    /// mountinfo writes space, tab, newline and backslash as `\040`-style octal escapes.
    static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
