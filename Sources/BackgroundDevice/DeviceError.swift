import Glibc

/// A failure while reading or watching the machine: which call failed, on what, and the errno.
///
/// Probes turn most failures into a reason ("cannot read …: Permission denied") rather than
/// throwing, so a reading always has a value; watchers throw these when they cannot start.
public enum DeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed: the call's name, the path or object it acted on, and `errno`.
    case system(call: String, target: String, errno: Int32)
    /// A file was larger than the probe reads (sysfs and procfs files are small; a larger one
    /// is not what it claims to be).
    case tooLarge(path: String, limit: Int)
    /// A file's content is not in the expected format.
    case malformed(path: String, reason: String)

    /// The errno of a failed system call, if this is one.
    public var errno: Int32? {
        if case .system(_, _, let code) = self { return code }
        return nil
    }

    /// One line: `<target>: <call>: <strerror>` and the like.
    public var description: String {
        switch self {
        case .system(let call, let target, let code):
            return "\(target): \(call): \(Self.message(for: code))"
        case .tooLarge(let path, let limit):
            return "\(path): larger than \(limit) bytes"
        case .malformed(let path, let reason):
            return "\(path): \(reason)"
        }
    }

    /// The C library's text for an errno value (`strerror`), e.g. "No such file or directory".
    public static func message(for code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
