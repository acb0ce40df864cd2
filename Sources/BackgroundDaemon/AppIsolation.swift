#if canImport(Glibc)
import Glibc
#endif

/// How far apps are kept apart from each other: the mode `bgctl daemon status` reports, and the
/// one SECURITY.md's table is about.
///
/// - ``perAppUsers(_:containers:)``: the daemon runs as root and starts each app under a uid of
///   its own (its gid is the same number), with its container `0700` owned by that uid. The
///   kernel then keeps apps from reading each other's files, signalling or `ptrace`-ing each
///   other; the daemon accepts a connection from an app's uid only as that app.
/// - ``sharedUser(uid:reason:)``: the daemon and its apps run under one uid (the daemon is not
///   root, or per-app uids were turned off). The daemon's checks keep one app from acting on
///   another *through the daemon*; a hostile app can still `ptrace` or signal the other.
public enum AppIsolation: Sendable, Hashable, CustomStringConvertible {
    /// Each app under its own uid from `range`; containers under `containers`.
    case perAppUsers(AppUserRange, containers: String)
    /// Every app under the daemon's uid.
    case sharedUser(uid: UInt32, reason: String)

    /// The directory of the apps' containers with per-app uids unless `--containers` names
    /// another: `<state>/containers`, one per daemon (every app's container is
    /// `<containers>/<bundle identifier>`). The daemon makes its state directory `0711` in this
    /// mode (searchable, not listable), because an app must reach its own container by path.
    public static func defaultContainers(state: String) -> String { state + "/containers" }

    /// Every app under the daemon's own uid, per-app uids turned off: what a daemon that is
    /// not started by `backgroundd` (tests, embedding) uses unless told otherwise.
    public static var sharedWithDaemon: AppIsolation {
        .sharedUser(uid: UInt32(geteuid()), reason: "per-app uids are turned off")
    }

    /// Per-app uids when the daemon runs as root (`effectiveUID` 0) and they are not turned off;
    /// the shared uid otherwise, with the reason.
    ///
    /// - Parameters:
    ///   - requested: The range to use, or nil when per-app uids are turned off.
    ///   - explicit: Whether the range was asked for explicitly: then a daemon that is not root
    ///     is an error, not a quiet fallback.
    ///   - containers: The directory of the apps' containers (``defaultContainers(state:)``).
    /// - Throws: ``DaemonError`` with code `.badConfiguration` for an explicit range without root.
    public static func choose(
        requested: AppUserRange?,
        explicit: Bool,
        containers: String,
        effectiveUID: UInt32
    ) throws(DaemonError) -> AppIsolation {
        guard let range = requested else {
            return .sharedUser(uid: effectiveUID, reason: "per-app uids are turned off")
        }
        guard effectiveUID == 0 else {
            if explicit {
                throw DaemonError(
                    .badConfiguration,
                    "--app-users \(range): starting apps under their own uids needs root (this daemon runs as uid \(effectiveUID))"
                )
            }
            return .sharedUser(uid: effectiveUID, reason: "the daemon is not root")
        }
        return .perAppUsers(range, containers: containers)
    }

    /// `per-app-uids` or `shared-uid`, for `--json`.
    public var name: String {
        switch self {
        case .perAppUsers: return "per-app-uids"
        case .sharedUser: return "shared-uid"
        }
    }

    /// Whether each app has its own uid.
    public var hasAppUsers: Bool {
        if case .perAppUsers = self { return true }
        return false
    }

    /// For `bgctl daemon status`: `per-app uids (200000-265535, containers in /var/lib/...)`.
    public var description: String {
        switch self {
        case .perAppUsers(let range, let containers):
            return "per-app uids (\(range), containers in \(containers))"
        case .sharedUser(let uid, let reason):
            return
                "shared uid (every app runs as uid \(uid): \(reason); apps of one uid can ptrace and signal each other)"
        }
    }
}

/// The uids a root daemon gives its apps: `first` to `last` inclusive. Each app gets the lowest
/// id of the range that no other app or shared container has, that is no user in the password
/// database (`getpwuid`) and no group in the group database (`getgrgid`), and keeps it for good
/// (the store's `app_users`).
///
/// The default, 200000–265535, lies above the 16-bit ids that distributions hand out to people
/// and system users, and below systemd's container ranges (524288 and up).
public struct AppUserRange: Sendable, Hashable, CustomStringConvertible {
    /// The first id.
    public let first: UInt32
    /// The last id, inclusive.
    public let last: UInt32

    /// 200000–265535.
    public static let standard = AppUserRange(uncheckedFirst: 200_000, last: 265_535)

    private init(uncheckedFirst first: UInt32, last: UInt32) {
        self.first = first
        self.last = last
    }

    /// A range from `first` to `last` inclusive.
    ///
    /// - Throws: ``DaemonError`` with code `.badConfiguration` if it includes 0 (root), the id
    ///   65534 (`nobody`), the invalid id 4294967295, or ends before it starts.
    public init(first: UInt32, last: UInt32) throws(DaemonError) {
        let text = "\(first)-\(last)"
        guard first > 0 else { throw Self.refused(text, "it includes uid 0 (root): an app never runs as root") }
        guard last >= first else { throw Self.refused(text, "it ends before it starts") }
        guard last < UInt32.max else { throw Self.refused(text, "4294967295 is not a valid id") }
        guard !(first...last).contains(65534) else {
            throw Self.refused(text, "it includes 65534 (nobody), which many users share")
        }
        self.init(uncheckedFirst: first, last: last)
    }

    /// Reads `<first>-<last>` (`200000-265535`).
    ///
    /// - Throws: ``DaemonError`` with code `.badConfiguration` naming the text and what is wrong.
    public init(parsing text: String) throws(DaemonError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = UInt32(parts[0]), let last = UInt32(parts[1]) else {
            throw Self.refused(text, "expected <first>-<last>, two ids, for example 200000-265535")
        }
        try self.init(first: first, last: last)
    }

    /// Whether `id` lies in the range.
    public func contains(_ id: UInt32) -> Bool { (first...last).contains(id) }

    /// `200000-265535`.
    public var description: String { "\(first)-\(last)" }

    private static func refused(_ text: String, _ why: String) -> DaemonError {
        DaemonError(.badConfiguration, "app user range \(text): \(why)")
    }
}
