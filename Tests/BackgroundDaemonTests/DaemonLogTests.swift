import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Foundation
import Testing

/// Issue 26: `bgctl daemon log` without `--follow` printed nothing and exited 0. The daemon keeps
/// its latest lines and gives them with the answer to `followLog`; what comes after follows as
/// `logLine`s, in order.
@Suite("bgctl daemon log: the latest lines, then the new ones")
struct DaemonLogTests {
    static let notes = EngineFixture.notes

    /// The `recent` lines of the answer a control link got to `followLog`.
    static func recent(_ link: RecordingLink) throws -> [String] {
        let reply = try #require(
            link.sent.withLock { sent in
                sent.lazy.compactMap { response -> ControlReply? in
                    guard case .control(let reply) = response else { return nil }
                    return reply
                }.last
            }
        )
        let document = try #require(try JSONSerialization.jsonObject(with: Data(reply.json.utf8)) as? [String: Any])
        let recent = try #require(document["recent"] as? [String])
        #expect(reply.text == recent.joined(separator: "\n"))
        return recent
    }

    static func followed(_ link: RecordingLink) -> [String] {
        link.sent.withLock { sent in
            sent.compactMap { response -> String? in
                guard case .logLine(let line) = response else { return nil }
                return line
            }
        }
    }

    @Test("the answer to followLog carries the latest lines, oldest first; later ones follow as lines")
    func recentThenFollowed() throws {
        let fixture = try EngineFixture()
        let app = fixture.connect(Self.notes)
        fixture.send(.finishLaunching(Self.notes), from: app)
        let follower = fixture.control()
        fixture.engine.received(.control(.followLog), from: follower, peer: nil)
        let recent = try Self.recent(follower)
        #expect(
            recent.suffix(2) == ["com.example.notes: not running → inactive", "com.example.notes: inactive → active"]
        )
        #expect(Self.followed(follower).isEmpty)

        fixture.engine.received(.control(.home), from: fixture.control(), peer: nil)
        #expect(Self.followed(follower).first == "com.example.notes: active → inactive")
    }

    @Test("at most recentLogLines are kept, the newest last")
    func bounded() throws {
        let fixture = try EngineFixture()
        let app = fixture.connect(Self.notes)
        fixture.send(.finishLaunching(Self.notes), from: app)
        let control = fixture.control()
        for _ in 0..<150 {
            fixture.engine.received(.control(.home), from: control, peer: nil)
            fixture.engine.received(.control(.open(Self.notes)), from: control, peer: nil)
        }
        let follower = fixture.control()
        fixture.engine.received(.control(.followLog), from: follower, peer: nil)
        let recent = try Self.recent(follower)
        #expect(recent.count <= DaemonEngine.recentLogLines && recent.count >= DaemonEngine.recentLogLines / 2)
        #expect(recent.last == "com.example.notes: inactive → active", "\(recent.suffix(3))")
    }
}
