import BackgroundExecution
import BackgroundPosix
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Glibc
import Testing

/// How clients and daemons of different releases meet (issue 26, protocol versions;
/// docs/daemon-protocol.md, "Versions"): a daemon serves one version, and answers a hello in
/// another with a refusal stamped with the client's version, in the one form every version
/// reads; clients read a refusal of another version too, and say what to do.
@Suite("Protocol versions: another release's client or daemon gets a refusal it can read")
struct ProtocolVersionTests {
    /// A hello as a client of `version` would send it (the hello's own form is this version's;
    /// the daemon reads the version byte before anything else).
    static func hello(speaking version: UInt8) throws -> [UInt8] {
        var message = try ProtocolCodec.encode(DaemonRequest.hello(ClientHello(role: .control)))
        message[3] = version
        return try Frame.encode(message)
    }

    @Test("The refusal every version reads has one form, frozen: refused, then the code and the message")
    func refusalFormIsFrozen() throws {
        let bytes = ProtocolCodec.versionRefusal(toClientSpeaking: 2)
        #expect(Array(bytes[0..<4]) == [0x42, 0x47, 0x58, 2], "BGX and the client's version")
        let value = try WireValue.read(Array(bytes[4...]), limits: .standard)
        let message =
            "this backgroundd speaks protocol version \(ProtocolCodec.version), the client 2: use a client "
            + "(the app's BackgroundExecution, bgctl) built from the same release as the daemon"
        // The form of versions 1 to 4 (a keyed enum case with one unlabelled payload).
        let expected = WireValue.keyed([
            (
                key: "refused",
                value: .keyed([
                    (
                        key: "_0",
                        value: .keyed([
                            (key: "code", value: .string("unsupportedVersion")),
                            (key: "message", value: .string(message)),
                        ])
                    )
                ])
            )
        ])
        #expect(value == expected, "\(value)")
        #expect(ProtocolCodec.refusalOfAnyVersion(bytes)?.code == .unsupportedVersion)
        #expect(ProtocolCodec.refusalOfAnyVersion(bytes)?.message == message)
    }

    @Test("A frame of this version, or one that is not a refusal, is not read as another version's refusal")
    func onlyRefusalsOfOtherVersions() throws {
        let ours = try ProtocolCodec.encode(DaemonResponse.refused(DaemonRefusal(.notPermitted, "no")))
        #expect(ProtocolCodec.refusalOfAnyVersion(ours) == nil, "this version's frames decode as they are")
        var welcome = try ProtocolCodec.encode(DaemonResponse.welcome(DaemonWelcome()))
        welcome[3] = ProtocolCodec.version + 1
        #expect(ProtocolCodec.refusalOfAnyVersion(welcome) == nil)
        #expect(ProtocolCodec.refusalOfAnyVersion(Array("BGX".utf8)) == nil)
        #expect(ProtocolCodec.refusalOfAnyVersion([]) == nil)
    }

    @Test(
        "An older and a newer client are refused over the real socket in their own version, naming both; the daemon serves on",
        arguments: [UInt8(1), 2, ProtocolCodec.version + 1, 255]
    )
    func otherReleasesClientsAreRefusedReadably(clientVersion: UInt8) async throws {
        let (stamp, refusal, closed, later) = try await SocketServerTests.withServer { path, _ in
            let client = try SocketClient(path: path)
            try client.sendRaw(Self.hello(speaking: clientVersion))
            let payload = try client.receivePayload()
            let closed = client.waitForClose()
            let current = try SocketClient(path: path)
            return (
                payload.flatMap(ProtocolCodec.version(of:)), payload.flatMap(ProtocolCodec.refusalOfAnyVersion), closed,
                try current.hello(.control)
            )
        }
        #expect(stamp == clientVersion, "the refusal is stamped with the client's version")
        #expect(refusal?.code == .unsupportedVersion)
        #expect(
            refusal?.message.contains("protocol version \(ProtocolCodec.version), the client \(clientVersion)") == true
        )
        #expect(closed)
        #expect(later?.isWelcome == true, "a client of this release is served")
    }

    @Test("bgctl meets another release's daemon: one line naming both versions and what to do, exit 69")
    func bgctlAgainstAnotherRelease() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/other-release.sock"
        let listener = try SystemCall.unixStreamSocket()
        defer { SystemCall.close(listener) }
        try SystemCall.bind(listener, to: path)
        try SystemCall.listen(listener, backlog: 1)
        // A daemon of a newer release that answers every hello in its own version, as a daemon
        // that does not stamp the client's version would: bgctl still reads the refusal.
        let newer = ProtocolCodec.version + 1
        let server = Thread {
            guard let connection = try? SystemCall.accept(listener) else { return }
            // The hello first, as a daemon reads it (a close before it would break bgctl's send).
            var hello = [UInt8](repeating: 0, count: 4096)
            _ = hello.withUnsafeMutableBytes { Glibc.read(connection, $0.baseAddress, $0.count) }
            var refusal = ProtocolCodec.versionRefusal(toClientSpeaking: ProtocolCodec.version)
            refusal[3] = newer
            _ = try? SystemCall.writeAll(connection, Frame.encode(refusal))
            SystemCall.close(connection)
        }
        server.start()
        let result = try await runBgctl(["daemon", "status", "--socket", path])
        #expect(result.status == 69, "\(result)")
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1, "\(result.error)")
        #expect(lines.first?.hasPrefix("bgctl daemon status: ") == true, "\(result.error)")
        #expect(result.error.contains("protocol version \(ProtocolCodec.version)"))
        #expect(result.error.contains("same release"))
    }
}
