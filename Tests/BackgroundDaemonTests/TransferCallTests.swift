import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Testing

/// The daemon's side of the transfer calls: what breaks a bound, or names another app, closes the
/// connection before anything runs.
struct TransferCallTests {
    @Test("A transfer call for another app's session closes the connection with notPermitted")
    func anotherAppsSession() throws {
        let fixture = try EngineFixture()
        let notes = fixture.connect(EngineFixture.notes)
        let options = TransferSessionOptions(app: EngineFixture.mail, session: "com.example.mail.sync")
        fixture.engine.received(.app(.transfer(.attach(options))), from: notes, peer: nil)
        #expect(notes.isClosed)
        #expect(notes.refusal?.code == .notPermitted)
        #expect(notes.refusal?.message == "transfer call refused: a session of com.example.mail")
    }

    @Test("An order that names its own partial file (a path the engine chooses) is refused")
    func orderNamingAFile() throws {
        let fixture = try EngineFixture()
        let notes = fixture.connect(EngineFixture.notes)
        var transfer = TransferCheckpoint(
            app: EngineFixture.notes,
            session: "s",
            task: 1,
            kind: .download,
            method: "GET",
            url: "http://127.0.0.1:1/file"
        )
        transfer.partialFile = "../com.example.mail/Container/inbox.db"
        fixture.engine.received(
            .app(.transfer(.submit(transfer, uploadPath: nil, resumeData: nil))),
            from: notes,
            peer: nil
        )
        #expect(notes.isClosed)
        #expect(notes.refusal?.message.contains("the engine's own fields") == true)
    }
}
