import BackgroundProcessControl
public import BackgroundStore

#if canImport(Glibc)
import Glibc
#endif

/// Gives each installed app its own uid (and the same number as its gid), and each shared
/// container its own gid, when the daemon runs apps under per-app uids.
///
/// The assignments live in the store (`app_users`), so an app has the same uid after every
/// restart of the daemon, and they are never taken back: an id whose owner was uninstalled is
/// not given to another app, since files the first one made may still exist. A new owner gets
/// the lowest free id of the range that is neither a user (`getpwuid`) nor a group (`getgrgid`)
/// of the system's databases, so it never collides with an account in `/etc/passwd`.
///
/// An app whose manifest asks for a `UserID` gets it only if it lies in the range, is no system
/// user or group, and belongs to nobody else; otherwise the app is not installed, and the
/// problem names the manifest and the id. An app apps share a container with reaches it through
/// the container's group, a supplementary group of each app that lists the container.
public struct AppUserTable: Sendable {
    /// Where an id is already taken outside the daemon: a reason, or nil if it is free.
    public typealias SystemAccounts = @Sendable (UInt32) -> String?

    /// The apps, each with its ``InstalledApp/user`` set, in the order given.
    public var apps: [InstalledApp]
    /// The apps that could not get an id, by manifest file.
    public var problems: [ManifestDirectory.Problem]

    /// Assigns ids to `apps` (sorted by bundle identifier, so the same manifests give the same
    /// ids on every machine) and records new ones in `store`.
    ///
    /// - Throws: ``DaemonError`` with code `.store` if the store cannot be read or written.
    public static func assign(
        _ apps: [InstalledApp],
        range: AppUserRange,
        store: BackgroundStore,
        systemAccounts: @escaping SystemAccounts = AppUserTable.systemAccount
    ) throws(DaemonError) -> AppUserTable {
        var ids = Assignments(range: range, systemAccounts: systemAccounts)
        do {
            for (owner, id) in try store.assignedIDs() { ids.record(owner, id) }
        } catch {
            throw DaemonError(.store, "the app users in \(store.path) cannot be read: \(error)")
        }
        var assigned: [InstalledApp] = []
        var problems: [ManifestDirectory.Problem] = []
        for app in apps.sorted(by: { $0.id < $1.id }) {
            do throws(DaemonError) {
                var app = app
                let uid = try ids.id(forOwner: app.id.bundleIdentifier, asked: app.launch?.userID, store: store)
                var groups: [UInt32] = []
                for path in Set(app.launch?.sharedContainers ?? []).sorted() {
                    groups.append(try ids.id(forOwner: Self.groupOwner(path), asked: nil, store: store))
                }
                app.user = ProcessUser(uid: uid, gid: uid, groups: groups)
                assigned.append(app)
            } catch {
                guard error.code == .badManifest else { throw error }
                problems.append(ManifestDirectory.Problem(file: app.file, reason: error.message))
            }
        }
        let order = Dictionary(apps.enumerated().map { ($1.file, $0) }, uniquingKeysWith: { first, _ in first })
        assigned.sort { (order[$0.file] ?? 0) < (order[$1.file] ?? 0) }
        return AppUserTable(apps: assigned, problems: problems)
    }

    /// The store's owner name of a shared container's group: `group:<path>`.
    public static func groupOwner(_ path: String) -> String { "group:" + path }

    /// The password and group databases: `user 'name'` or `group 'name'` when `id` is taken.
    public static let systemAccount: SystemAccounts = { id in
        if let user = getpwuid(uid_t(id)) { return "it is user '\(String(cString: user.pointee.pw_name))'" }
        if let group = getgrgid(gid_t(id)) { return "it is group '\(String(cString: group.pointee.gr_name))'" }
        return nil
    }
}

/// The ids taken so far (from the store and this run), and how to choose a new one.
private struct Assignments {
    let range: AppUserRange
    let systemAccounts: AppUserTable.SystemAccounts
    var byOwner: [String: UInt32] = [:]
    var owners: [UInt32: String] = [:]
    /// Where to look for the next free id.
    var cursor: UInt32

    init(range: AppUserRange, systemAccounts: @escaping AppUserTable.SystemAccounts) {
        self.range = range
        self.systemAccounts = systemAccounts
        cursor = range.first
    }

    mutating func record(_ owner: String, _ id: UInt32) {
        byOwner[owner] = id
        owners[id] = owner
    }

    /// The owner's id: the one it has, else the one its manifest asks for, else the next free.
    mutating func id(forOwner owner: String, asked: UInt32?, store: BackgroundStore) throws(DaemonError) -> UInt32 {
        if let id = byOwner[owner] {
            if let asked, asked != id {
                throw refused("UserID \(asked): \(owner) has had uid \(id) since it was installed, and keeps it")
            }
            if let taken = systemAccounts(id) {
                throw refused("uid \(id), assigned to \(owner), is taken by the system now (\(taken))")
            }
            return id
        }
        let id: UInt32
        if let asked {
            guard range.contains(asked) else {
                throw refused("UserID \(asked) is outside the app user range \(range)")
            }
            if let other = owners[asked] { throw refused("UserID \(asked) belongs to \(other)") }
            if let taken = systemAccounts(asked) { throw refused("UserID \(asked) cannot be used: \(taken)") }
            id = asked
        } else {
            guard let free = nextFree() else {
                throw refused("no free id is left in the app user range \(range) for \(owner)")
            }
            id = free
        }
        do {
            try store.assignID(id, to: owner)
        } catch {
            throw DaemonError(.store, "uid \(id) for \(owner) cannot be recorded: \(error)")
        }
        record(owner, id)
        return id
    }

    /// The lowest id from the cursor on that nobody has (the range's last id is below
    /// `UInt32.max`, so the cursor cannot overflow).
    private mutating func nextFree() -> UInt32? {
        while cursor <= range.last {
            let candidate = cursor
            cursor += 1
            if owners[candidate] == nil, systemAccounts(candidate) == nil { return candidate }
        }
        return nil
    }

    private func refused(_ why: String) -> DaemonError {
        DaemonError(.badManifest, "\(LaunchCommandReader.key): \(why)")
    }
}
