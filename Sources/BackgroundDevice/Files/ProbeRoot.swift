import BackgroundPosix
import Glibc

/// The directory the probes read the machine from: `/` on a real machine, a temporary directory
/// holding the same files (`sys/class/power_supply/BAT0/capacity`, `proc/pressure/memory`, …) in
/// tests.
///
/// Every read is bounded (``limit``), opens with `O_NOFOLLOW` on the last component and
/// `O_CLOEXEC`, and retries `EINTR`. sysfs builds its class directories from symbolic links
/// (`/sys/class/net/eth0` → `../../devices/…`), so links in the middle of a path are followed;
/// these are kernel file systems only root can change, not paths another user could write.
public struct ProbeRoot: Sendable, Hashable, CustomStringConvertible {
    /// The root directory, without a trailing slash (`""` for `/`).
    public let path: String
    /// The most bytes read from one file. sysfs attributes are at most a page; procfs files the
    /// probes read are a few KiB.
    public let limit: Int

    /// The real machine.
    public static let machine = ProbeRoot("/")

    /// A root at `path` (`/` for the machine, a fake tree in tests).
    public init(_ path: String, limit: Int = 64 * 1024) {
        var trimmed = path
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed
        self.limit = limit
    }

    /// Whether this is the real machine (`/`): only there do kernel event sockets make sense.
    public var isMachine: Bool { path.isEmpty }

    /// `/` or the fake tree's directory.
    public var description: String { path.isEmpty ? "/" : path }

    /// The absolute path of `relative` (written without a leading slash: `sys/class/net`).
    public func resolve(_ relative: String) -> String {
        path + "/" + relative
    }

    /// The content of a small file, or `nil` when it does not exist (`ENOENT`, `ENOTDIR`).
    ///
    /// - Throws: ``DeviceError/system(call:target:errno:)`` for other failures (`EACCES`,
    ///   `EINVAL` as sysfs answers for `carrier` on a down interface, `ELOOP` for a link),
    ///   ``DeviceError/tooLarge(path:limit:)`` past ``limit``.
    public func read(_ relative: String) throws(DeviceError) -> String? {
        guard let bytes = try readBytes(relative) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``read(_:)`` as bytes.
    public func readBytes(_ relative: String) throws(DeviceError) -> [UInt8]? {
        let full = resolve(relative)
        let descriptor: Int32
        do {
            descriptor = try SystemCall.checked("open", full) {
                open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            }
        } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return nil }
            throw error
        }
        defer { SystemCall.close(descriptor) }
        return try Self.readAll(descriptor, path: full, limit: limit)
    }

    /// Reads until end of file, at most `limit` bytes; one more byte throws `tooLarge`.
    static func readAll(_ descriptor: Int32, path: String, limit: Int) throws(DeviceError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try SystemCall.checked("read", path) {
                chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            }
            if count == 0 { return bytes }
            if bytes.count + count > limit { throw .tooLarge(path: path, limit: limit) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// The names in a directory, sorted, without `.` and `..`; `nil` when it does not exist.
    public func list(_ relative: String) throws(DeviceError) -> [String]? {
        let full = resolve(relative)
        guard let directory = opendir(full) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw .system(call: "opendir", target: full, errno: code)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .system(call: "readdir", target: full, errno: errno) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// ``list(_:)`` as a probe answers: the names, or why the directory cannot be read.
    func entries(_ relative: String) -> Probed<[String]> {
        do {
            guard let names = try list(relative) else { return .unavailable(reason: "no \(resolve(relative))") }
            return .read(names, from: resolve(relative))
        } catch {
            return .unavailable(reason: error.description)
        }
    }

    /// Whether `relative` exists (as anything).
    public func exists(_ relative: String) -> Bool {
        var info = stat()
        return stat(resolve(relative), &info) == 0
    }

    /// A file's first line without surrounding white space, `nil` when missing; read errors
    /// come back as the error so a probe can name them in its reason.
    func attribute(_ relative: String) -> Result<String?, DeviceError> {
        do {
            guard let text = try read(relative) else { return .success(nil) }
            let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return .success(String(line).trimmingWhitespace())
        } catch {
            return .failure(error)
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs, newlines and NULs.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\0" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}
