import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundStore
import Foundation
import Logging
import Synchronization

/// A fresh directory under /tmp, `0711`, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    /// `0711` (searchable, not listable): a root daemon started in its default mode, per-app
    /// uids, puts the apps' containers in its state directory, which its apps must reach.
    init() throws {
        var template = Array("/tmp/backgroundd-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
        chmod(path, 0o711)
    }

    func write(_ name: String, _ text: String, mode: Int = 0o600) throws {
        let url = URL(fileURLWithPath: path + "/" + name)
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// A daemon state directory inside this one (`state`, with `state/apps`, both 0700) holding
    /// `manifests` (file name → manifest document); returns its path.
    func daemonState(manifests: [String: [String: Any]]) throws -> String {
        let state = path + "/state"
        try FileManager.default.createDirectory(
            atPath: state + "/apps",
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        for (name, manifest) in manifests {
            try JSONSerialization.data(withJSONObject: manifest).write(
                to: URL(fileURLWithPath: state + "/apps/" + name)
            )
        }
        return state
    }
}

/// A manifest as JSON: the Info.plist keys and an optional launch command.
func manifestJSON(_ app: String, identifiers: [String] = [], modes: [String] = [], executable: String? = nil) -> String
{
    var document: [String: Any] = ["CFBundleIdentifier": app]
    if !identifiers.isEmpty { document["BGTaskSchedulerPermittedIdentifiers"] = identifiers }
    if !modes.isEmpty { document["UIBackgroundModes"] = modes }
    if let executable { document["BackgroundLaunch"] = ["Arguments": [executable]] }
    let data = try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let instant = Mutex<Instant>(.seconds(1000))
    var now: Instant { instant.withLock { $0 } }
    func advance(by duration: Duration) { instant.withLock { $0 = $0 + duration } }
}

/// Wake-ups recorded, never fired: tests tick by hand.
final class RecordedWakeups: WakeupScheduler {
    let armed = Mutex<Instant?>(nil)
    func arm(at deadline: Instant?, engine: DaemonEngine) { armed.withLock { $0 = deadline } }
}

/// Process control that records what it was asked.
final class RecordingProcesses: AppProcesses {
    let calls = Mutex<[String]>([])
    var mechanism: String { "recording (tests)" }
    func launch(_ app: InstalledApp, reason: LaunchReason, incarnation: Incarnation) throws {
        calls.withLock { $0.append("launch \(app.id) \(reason.rawValue) \(incarnation.rawValue)") }
    }
    func freeze(_ app: AppID) { calls.withLock { $0.append("freeze \(app)") } }
    func thaw(_ app: AppID) { calls.withLock { $0.append("thaw \(app)") } }
    func kill(_ app: AppID) { calls.withLock { $0.append("kill \(app)") } }
    /// Why an app the user started is not taken under control; nil (the default) takes it.
    let admission = Mutex<String?>(nil)
    /// Admissions and releases of processes the user started, apart from ``calls``.
    let admissions = Mutex<[String]>([])
    func admit(_ app: InstalledApp, peer: PeerIdentity?) -> String? {
        admissions.withLock { $0.append("admit \(app.id)") }
        return admission.withLock { $0 }
    }
    func release(_ app: AppID) { admissions.withLock { $0.append("release \(app)") } }
}

/// A connection that records what the engine sends it.
final class RecordingLink: ClientLink {
    let linkID: Int
    let sent = Mutex<[DaemonResponse]>([])
    let closedReason = Mutex<String?>(nil)
    private static let counter = Atomic<Int>(1_000_000)

    init() { linkID = Self.counter.add(1, ordering: .relaxed).newValue }

    func send(_ response: DaemonResponse) { sent.withLock { $0.append(response) } }
    func close(reason: String) { closedReason.withLock { $0 = $0 ?? reason } }

    var last: DaemonResponse? { sent.withLock { $0.last } }
    var isClosed: Bool { closedReason.withLock { $0 != nil } }
    var refusal: DaemonRefusal? {
        sent.withLock { sent in
            for case .refused(let refusal) in sent { return refusal }
            return nil
        }
    }
    var lastAnswer: (Reply?, [Effect])? {
        sent.withLock { sent in
            for case .system(.answer(let reply, let effects)) in sent.reversed() { return (reply, effects) }
            return nil
        }
    }
}

/// An engine over an in-memory store with two installed apps and hand-driven time.
struct EngineFixture {
    static let notes: AppID = "com.example.notes"
    static let mail: AppID = "com.example.mail"

    let engine: DaemonEngine
    let clock: TestClock
    let processes: RecordingProcesses
    let store: BackgroundStore
    /// The engine's wake-ups, armed and never fired: tests tick by hand.
    let wakeups = RecordedWakeups()

    /// `modes`: background modes an app declares besides `fetch` and `processing`.
    init(
        store: BackgroundStore? = nil,
        policy: SystemPolicy = .iOS,
        survivors: [AdoptedProcess] = [],
        clock: TestClock = TestClock(),
        modes: [AppID: Set<BackgroundMode>] = [:],
        journalPath: String? = nil,
        deviceSettings: DaemonDevice.Settings = DaemonDevice.Settings()
    ) throws {
        let apps = [Self.notes, Self.mail].map { app in
            InstalledApp(
                manifest: AppManifest(
                    bundleIdentifier: app,
                    permittedTaskIdentifiers: ["\(app).refresh"],
                    backgroundModes: Set<BackgroundMode>([.fetch, .processing]).union(modes[app] ?? [])
                ),
                launch: LaunchCommand(executable: "/usr/bin/\(app.bundleIdentifier)"),
                file: "\(app.bundleIdentifier).json"
            )
        }
        let processes = RecordingProcesses()
        let store = try store ?? BackgroundStore.inMemory()
        self.clock = clock
        self.processes = processes
        self.store = store
        var configuration = DaemonEngine.Configuration(
            policy: policy,
            journalPath: journalPath,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        configuration.deviceSettings = deviceSettings
        engine = try DaemonEngine(
            configuration: configuration,
            store: store,
            apps: apps,
            processes: processes,
            survivors: survivors,
            clock: { clock.now },
            wallClock: WallClock(unixSecondsAtOrigin: 1_767_225_600),
            wakeups: wakeups
        )
    }

    /// A connection that said hello as `app`, as an inherited (daemon-started) connection does.
    func connect(_ app: AppID) -> RecordingLink {
        let link = RecordingLink()
        engine.connected(link)
        engine.received(.hello(ClientHello(role: .app(app))), from: link, peer: nil)
        return link
    }

    func control() -> RecordingLink {
        let link = RecordingLink()
        engine.connected(link)
        engine.received(.hello(ClientHello(role: .control)), from: link, peer: nil)
        return link
    }

    func send(_ event: Event, from link: RecordingLink) {
        engine.received(.app(.event(event)), from: link, peer: nil)
    }
}
