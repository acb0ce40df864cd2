import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Foundation
import Testing

/// An app that connects on its own is checked by peer credentials: its uid, and its
/// executable (`/proc/<pid>/exe`) against its manifest's launch command.
@Suite("Peer identity")
struct IdentityTests {
    let fixture: EngineFixture

    init() throws { fixture = try EngineFixture() }

    private var me: PeerIdentity {
        let pid = ProcessInfo.processInfo.processIdentifier
        let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return PeerIdentity(pid: pid, uid: getuid(), executable: exe)
    }

    @Test("a process that runs another executable than the manifest's is not the app")
    func impostor() {
        let link = RecordingLink()
        fixture.engine.connected(link)
        fixture.engine.received(.hello(ClientHello(role: .app(EngineFixture.notes))), from: link, peer: me)
        #expect(link.refusal?.code == .notTheApp)
        #expect(link.refusal?.message.contains("not /usr/bin/com.example.notes") == true)
        #expect(fixture.engine.answer(.apps).json.contains("\"connected\":false"))
    }

    @Test("another uid is not the app")
    func otherUser() {
        var peer = me
        peer.uid = getuid() == 0 ? 4242 : 0
        if getuid() != 0 {
            peer.uid = getuid() + 1
        }
        let link = RecordingLink()
        fixture.engine.connected(link)
        fixture.engine.received(.hello(ClientHello(role: .app(EngineFixture.notes))), from: link, peer: peer)
        #expect(link.refusal?.code == .notTheApp)
        #expect(link.refusal?.message.contains("uid") == true)
    }

    @Test("the process of an installed app cannot be a control client")
    func appAsControl() {
        var peer = me
        peer.executable = "/usr/bin/com.example.mail"
        let link = RecordingLink()
        fixture.engine.connected(link)
        fixture.engine.received(.hello(ClientHello(role: .control)), from: link, peer: peer)
        #expect(link.refusal?.code == .notPermitted)
        #expect(link.refusal?.message.contains("com.example.mail") == true)
    }

    @Test("the real executable is accepted")
    func genuine() throws {
        let exe = try #require(me.executable)
        let app = InstalledApp(
            manifest: AppManifest(bundleIdentifier: "com.example.tests"),
            launch: LaunchCommand(executable: exe),
            file: "tests.json"
        )
        let engine = try DaemonEngine(
            configuration: .init(),
            store: .inMemory(),
            apps: [app],
            processes: RecordingProcesses(),
            wakeups: RecordedWakeups()
        )
        let link = RecordingLink()
        engine.connected(link)
        engine.received(.hello(ClientHello(role: .app("com.example.tests"))), from: link, peer: me)
        guard case .welcome(let welcome)? = link.last else {
            Issue.record("not welcomed: \(String(describing: link.last))")
            return
        }
        #expect(welcome.incarnation == Incarnation(rawValue: 1))
        #expect(welcome.state == .active)
    }
}
