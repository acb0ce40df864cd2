import BackgroundCore
import BackgroundDaemon
import BackgroundProcessControl
import BackgroundProtocol
import BackgroundStore
import Foundation
import Logging
import Testing

/// Per-app uids: which id each app gets, that it keeps it across restarts and for good, what a
/// manifest may ask for, the range's and the mode's checks, and what `status` says.
@Suite("Per-app uids: assignment, persistence, the range, the mode")
struct AppUserTableTests {
    static let range = try! AppUserRange(first: 200_000, last: 200_009)

    static func app(_ id: String, userID: UInt32? = nil, shared: [String] = []) -> InstalledApp {
        InstalledApp(
            manifest: AppManifest(bundleIdentifier: AppID(id)),
            launch: LaunchCommand(executable: "/usr/bin/true", sharedContainers: shared, userID: userID),
            file: "\(id).json"
        )
    }

    /// No system accounts but the ones listed.
    static func accounts(_ taken: [UInt32: String] = [:]) -> AppUserTable.SystemAccounts {
        { id in taken[id] }
    }

    static func uids(_ table: AppUserTable) -> [String: UInt32] {
        Dictionary(uniqueKeysWithValues: table.apps.map { ($0.id.bundleIdentifier, $0.user?.uid ?? 0) })
    }

    @Test("the lowest free ids of the range, by bundle identifier, skipping accounts of the system")
    func lowestFree() throws {
        let store = try BackgroundStore.inMemory()
        let table = try AppUserTable.assign(
            [Self.app("com.example.notes"), Self.app("com.example.mail")],
            range: Self.range,
            store: store,
            systemAccounts: Self.accounts([200_000: "it is user 'alice'"])
        )
        #expect(table.problems.isEmpty)
        #expect(Self.uids(table) == ["com.example.mail": 200_001, "com.example.notes": 200_002])
        #expect(table.apps.map(\.id.bundleIdentifier) == ["com.example.notes", "com.example.mail"])
        #expect(table.apps.allSatisfy { $0.user?.gid == $0.user?.uid && $0.user?.groups == [] })
    }

    @Test("the same uids after a restart; an uninstalled app's uid is never given to another")
    func stableAndNeverReused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/store.sqlite"
        do {
            let store = try BackgroundStore(path: path)
            let first = try AppUserTable.assign(
                [Self.app("com.example.a"), Self.app("com.example.b")],
                range: Self.range,
                store: store,
                systemAccounts: Self.accounts()
            )
            #expect(Self.uids(first) == ["com.example.a": 200_000, "com.example.b": 200_001])
        }
        // Restarted: b is uninstalled, c is new and sorts before b.
        let store = try BackgroundStore(path: path)
        let second = try AppUserTable.assign(
            [Self.app("com.example.c"), Self.app("com.example.a")],
            range: Self.range,
            store: store,
            systemAccounts: Self.accounts()
        )
        #expect(Self.uids(second) == ["com.example.a": 200_000, "com.example.c": 200_002])
        #expect(try store.assignedIDs().map(\.owner) == ["com.example.a", "com.example.b", "com.example.c"])
    }

    @Test("a shared container gets a group of its own, a supplementary group of each app that lists it")
    func sharedContainerGroup() throws {
        let store = try BackgroundStore.inMemory()
        let table = try AppUserTable.assign(
            [
                Self.app("com.example.a", shared: ["/srv/group.notes"]),
                Self.app("com.example.b", shared: ["/srv/group.notes", "/srv/group.b"]),
            ],
            range: Self.range,
            store: store,
            systemAccounts: Self.accounts()
        )
        let users = Dictionary(uniqueKeysWithValues: table.apps.map { ($0.id.bundleIdentifier, $0.user!) })
        // a: 200000, its group: 200001; b: 200002, group.b: 200003.
        #expect(users["com.example.a"] == ProcessUser(uid: 200_000, gid: 200_000, groups: [200_001]))
        #expect(users["com.example.b"] == ProcessUser(uid: 200_002, gid: 200_002, groups: [200_003, 200_001]))
        #expect(try store.assignedIDs().first { $0.owner == "group:/srv/group.notes" }?.id == 200_001)
    }

    @Test(
        "a UserID outside the range, another app's, a system account's, or not the app's own: that app is not installed, named",
        arguments: [
            (UInt32(5000), "UserID 5000 is outside the app user range 200000-200009"),
            (UInt32(200_000), "UserID 200000 belongs to com.example.a"),
            (UInt32(200_005), "UserID 200005 cannot be used: it is user 'bob'"),
        ]
    )
    func badUserID(asked: UInt32, problem: String) throws {
        let store = try BackgroundStore.inMemory()
        let table = try AppUserTable.assign(
            [Self.app("com.example.a"), Self.app("com.example.b", userID: asked)],
            range: Self.range,
            store: store,
            systemAccounts: Self.accounts([200_005: "it is user 'bob'"])
        )
        #expect(table.apps.map(\.id.bundleIdentifier) == ["com.example.a"])
        #expect(table.problems.map(\.description) == ["com.example.b.json: BackgroundLaunch: \(problem)"])
    }

    @Test("a UserID in the range is used, and a later different one is refused: an app keeps its uid")
    func askedUserID() throws {
        let store = try BackgroundStore.inMemory()
        let first = try AppUserTable.assign(
            [Self.app("com.example.a", userID: 200_007)],
            range: Self.range,
            store: store,
            systemAccounts: Self.accounts()
        )
        #expect(Self.uids(first) == ["com.example.a": 200_007])
        let second = try AppUserTable.assign(
            [Self.app("com.example.a", userID: 200_008)],
            range: Self.range,
            store: store,
            systemAccounts: Self.accounts()
        )
        #expect(second.apps.isEmpty)
        #expect(
            second.problems.map(\.reason) == [
                "BackgroundLaunch: UserID 200008: com.example.a has had uid 200007 since it was installed, and keeps it"
            ]
        )
    }

    @Test("a full range leaves the apps it has no id for uninstalled, named")
    func fullRange() throws {
        let store = try BackgroundStore.inMemory()
        let table = try AppUserTable.assign(
            (0..<3).map { Self.app("com.example.app\($0)") },
            range: try AppUserRange(first: 300_000, last: 300_001),
            store: store,
            systemAccounts: Self.accounts()
        )
        #expect(table.apps.count == 2)
        #expect(
            table.problems.map(\.description) == [
                "com.example.app2.json: BackgroundLaunch: no free id is left in the app user range 300000-300001 for com.example.app2"
            ]
        )
    }

    @Test(
        "a bad range is a typed error naming it",
        arguments: [
            ("0-100", "app user range 0-100: it includes uid 0 (root): an app never runs as root"),
            ("300-200", "app user range 300-200: it ends before it starts"),
            ("60000-70000", "app user range 60000-70000: it includes 65534 (nobody), which many users share"),
            ("lots", "app user range lots: expected <first>-<last>, two ids, for example 200000-265535"),
            ("1-4294967295", "app user range 1-4294967295: 4294967295 is not a valid id"),
        ]
    )
    func badRange(text: String, message: String) {
        #expect {
            try AppUserRange(parsing: text)
        } throws: { error in
            (error as? DaemonError)?.code == .badConfiguration && (error as? DaemonError)?.message == message
        }
    }

    @Test("the mode: per-app uids only as root; an explicit range without root is an error, auto falls back")
    func chooseMode() throws {
        let range = AppUserRange.standard
        #expect(
            try AppIsolation.choose(requested: range, explicit: false, containers: "/s/containers", effectiveUID: 0)
                == .perAppUsers(range, containers: "/s/containers")
        )
        #expect(
            try AppIsolation.choose(requested: range, explicit: false, containers: "/s/containers", effectiveUID: 1000)
                == .sharedUser(uid: 1000, reason: "the daemon is not root")
        )
        #expect(
            try AppIsolation.choose(requested: nil, explicit: false, containers: "/s/containers", effectiveUID: 0).name
                == "shared-uid"
        )
        #expect {
            try AppIsolation.choose(requested: range, explicit: true, containers: "/s/containers", effectiveUID: 1000)
        } throws: { error in
            "\(error)".contains("needs root (this daemon runs as uid 1000)")
        }
    }

    @Test("a manifest's UserID must be a positive integer: 0, a string, a Boolean are refused by name")
    func manifestUserID() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let apps = directory.path + "/apps"
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        chmod(apps, 0o700)
        for (name, value) in [("zero", "0"), ("text", "\"200000\""), ("flag", "true"), ("good", "200001")] {
            let document =
                #"{"CFBundleIdentifier": "com.example.\#(name)", "BackgroundLaunch": {"Arguments": ["/bin/true"], "UserID": \#(value)}}"#
            try directory.write("apps/\(name).json", document)
        }
        let loaded = try ManifestDirectory.load(from: apps)
        #expect(loaded.apps.map(\.launch?.userID) == [200_001])
        let problems = Dictionary(uniqueKeysWithValues: loaded.problems.map { ($0.file, $0.reason) })
        #expect(problems["zero.json"]?.contains("UserID: 0 is root, and an app never runs as root") == true)
        #expect(problems["text.json"]?.contains("is not a user id") == true)
        #expect(problems["flag.json"]?.contains("is not a user id") == true)
    }

    @Test("bgctl daemon status and apps say which isolation holds, and each app's uid")
    func statusSaysTheMode() throws {
        let store = try BackgroundStore.inMemory()
        let table = try AppUserTable.assign(
            [Self.app("com.example.a")],
            range: Self.range,
            store: store,
            systemAccounts: Self.accounts()
        )
        let engine = try DaemonEngine(
            configuration: .init(
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                isolation: .perAppUsers(Self.range, containers: "/srv/containers")
            ),
            store: store,
            apps: table.apps,
            processes: RecordingProcesses(),
            wakeups: RecordedWakeups()
        )
        let status = engine.answer(.status)
        #expect(status.text.contains("isolation: per-app uids (200000-200009, containers in /srv/containers)"))
        #expect(status.json.contains(#""isolation":"per-app-uids""#))
        #expect(engine.answer(.apps).json.contains(#""uid":200000"#))
        let shared = try DaemonEngine(
            configuration: .init(
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                isolation: .sharedUser(uid: 1000, reason: "the daemon is not root")
            ),
            store: try BackgroundStore.inMemory(),
            apps: [Self.app("com.example.a")],
            processes: RecordingProcesses(),
            wakeups: RecordedWakeups()
        )
        #expect(shared.answer(.status).text.contains("isolation: shared uid (every app runs as uid 1000"))
        #expect(shared.answer(.status).json.contains(#""isolation":"shared-uid""#))
    }
}

/// Peer credentials with per-app uids: a process of app A's uid is app A and nobody else, and
/// never a control client; with a shared uid, the daemon's user is any app (its manifest's
/// executable still decides).
@Suite("Peer identity with per-app uids")
struct AppUserIdentityTests {
    static let range = try! AppUserRange(first: 200_000, last: 200_009)
    static let executable = "/usr/bin/true"

    static func engine(_ isolation: AppIsolation, users: Bool) throws -> DaemonEngine {
        let apps = ["com.example.a", "com.example.b"].enumerated().map { index, id in
            InstalledApp(
                manifest: AppManifest(bundleIdentifier: AppID(id)),
                launch: LaunchCommand(executable: executable),
                file: "\(id).json",
                user: users ? ProcessUser(uid: 200_000 + UInt32(index), gid: 200_000 + UInt32(index)) : nil
            )
        }
        return try DaemonEngine(
            configuration: .init(
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                isolation: isolation
            ),
            store: .inMemory(),
            apps: apps,
            processes: RecordingProcesses(),
            wakeups: RecordedWakeups()
        )
    }

    /// Says hello as `role` with the credentials of uid `uid` running `executable`.
    static func hello(_ engine: DaemonEngine, _ role: ClientRole, uid: UInt32) -> RecordingLink {
        let link = RecordingLink()
        engine.connected(link)
        let peer = PeerIdentity(pid: 4242, uid: uid, executable: executable)
        engine.received(.hello(ClientHello(role: role)), from: link, peer: peer)
        return link
    }

    @Test("root mode: uid A is app A, uid A claiming app B (even running B's executable) is refused")
    func perAppUsers() throws {
        let engine = try Self.engine(.perAppUsers(Self.range, containers: "/srv/containers"), users: true)
        let own = Self.hello(engine, .app("com.example.a"), uid: 200_000)
        #expect(own.refusal == nil)
        #expect(own.last?.isWelcome == true)
        let impostor = Self.hello(engine, .app("com.example.b"), uid: 200_000)
        #expect(impostor.refusal?.code == .notTheApp)
        #expect(impostor.refusal?.message == "uid 200000 may not connect as com.example.b")
        #expect(impostor.isClosed)
        let control = Self.hello(engine, .control, uid: 200_000)
        #expect(control.refusal?.code == .notPermitted)
        #expect(engine.answer(.apps).json.contains(#""connected":true"#))
    }

    /// Issue 22, Deliver 4: as root, an app the user started as root ran as uid 0 while
    /// `bgctl daemon apps` reported its own uid.
    @Test("root mode: an app with a uid of its own run as root is refused, and told how to start it")
    func ownUidOnly() throws {
        let engine = try Self.engine(.perAppUsers(Self.range, containers: "/srv/containers"), users: true)
        let link = Self.hello(engine, .app("com.example.a"), uid: 0)
        #expect(link.refusal?.code == .notTheApp)
        #expect(
            link.refusal?.message
                == "pid 4242 runs as uid 0, but com.example.a runs as its own uid 200000: start it as that "
                + "user (setpriv --reuid=200000 --regid=200000 --clear-groups …), or let the daemon start it "
                + "(bgctl daemon open com.example.a)"
        )
        #expect(link.isClosed)
        #expect(engine.answer(.apps).json.contains(#""connected":false"#))
    }

    @Test("shared-uid mode: the daemon's uid may be any app whose executable it runs; another uid none")
    func sharedUser() throws {
        let engine = try Self.engine(.sharedUser(uid: getuid(), reason: "tests"), users: false)
        #expect(Self.hello(engine, .app("com.example.b"), uid: getuid()).refusal == nil)
        let other = Self.hello(engine, .app("com.example.a"), uid: 200_000)
        #expect(other.refusal?.code == .notTheApp)
        #expect(other.refusal?.message == "uid 200000 may not connect as com.example.a")
    }

    /// Issue 25, finding 11: `notInstalled` for a missing app and `notTheApp` with the app's uid
    /// for an installed one let any local user list the installed apps and their uids.
    @Test("a uid that may not claim an app is told the same whether it is installed or not, and no uid")
    func refusalsTellNothing() throws {
        let engine = try Self.engine(.perAppUsers(Self.range, containers: "/srv/containers"), users: true)
        let installed = Self.hello(engine, .app("com.example.b"), uid: 300_000)
        let missing = Self.hello(engine, .app("com.example.missing"), uid: 300_000)
        #expect(installed.refusal?.code == .notTheApp && missing.refusal?.code == .notTheApp)
        #expect(installed.refusal?.message == "uid 300000 may not connect as com.example.b")
        #expect(missing.refusal?.message == "uid 300000 may not connect as com.example.missing")
        #expect(installed.isClosed && missing.isClosed)
        // The daemon's own user (and root) may still learn that an app is not installed.
        #expect(Self.hello(engine, .app("com.example.missing"), uid: getuid()).refusal?.code == .notInstalled)
    }

    @Test("a second hello on an app's connection is refused and closes it, as the protocol says")
    func secondHello() throws {
        let engine = try Self.engine(.perAppUsers(Self.range, containers: "/srv/containers"), users: true)
        let link = Self.hello(engine, .app("com.example.a"), uid: 200_000)
        #expect(link.last?.isWelcome == true)
        let peer = PeerIdentity(pid: 4242, uid: 200_000, executable: Self.executable)
        engine.received(.hello(ClientHello(role: .app("com.example.a"))), from: link, peer: peer)
        #expect(link.refusal?.code == .protocolViolation)
        #expect(link.isClosed)
    }
}
