/// An app process this controller started: the handle every other call takes.
///
/// Two handles are equal only if they name the same start: `serial` is never reused by a
/// controller, so a recycled pid can never be mistaken for an earlier app.
public struct AppProcess: Sendable, Hashable, CustomStringConvertible {
    /// The request's label (the app's bundle identifier).
    public let label: String
    /// The process id of the app's main process; also its process group id.
    public let pid: Int32
    /// This start's number, unique in this controller's process.
    public let serial: UInt64
    /// The absolute path of the app's own cgroup, or nil when cgroups are not in use.
    public let cgroup: String?

    /// A handle; the daemon's fakes build their own, the real controller returns one from
    /// ``ProcessController/spawn(_:)``.
    public init(label: String, pid: Int32, serial: UInt64, cgroup: String?) {
        self.label = label
        self.pid = pid
        self.serial = serial
        self.cgroup = cgroup
    }

    /// `com.example.news (pid 4242)`.
    public var description: String { "\(label) (pid \(pid))" }
}
