import BackgroundCore
import Testing

/// The core's contract with its shells: calls are answered with reply values, effects are the
/// instructions, and processes have incarnations (docs/core-contract.md).
struct ReplyTests {
    @Test("A begin replies granted with its identifier, and asks nothing else of the shell")
    func beginGranted() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        #expect(try d.begin(notes, at: .t(1)) == .granted(.id(1)))
    }

    @Test("A denied begin replies denied with the reason, and the effect tells the shell to call the handler")
    func beginDenied() throws {
        var d = Driver(policy: .iOS)
        try d.send(.launch(notes, .foreground), at: .zero)
        try d.send(.terminate(notes, .exited(status: 0)), at: .t(1))
        let answer = try d.begin(notes, "Late", at: .t(2))
        guard case .denied(let reason) = answer.reply else {
            Issue.record("not denied: \(String(describing: answer.reply))")
            return
        }
        #expect(answer.withoutLogs == [.assertionDenied(notes, name: "Late", reason: reason)])
    }

    @Test("register replies registered or refused; submit replies accepted (the request as kept) or rejected")
    func schedulingReplies() throws {
        var d = Driver()
        try d.install(notes)
        try d.send(.launch(notes, .foreground), at: .zero)
        try d.send(.registerTaskHandler(notes, identifier: notes.refreshID), at: .zero)
        #expect(d.lastReply == .registered(identifier: notes.refreshID))
        try d.send(.registerTaskHandler(notes, identifier: "com.example.notes.unlisted"), at: .zero)
        #expect(d.lastReply == .refused(identifier: "com.example.notes.unlisted"))
        try d.send(.finishLaunching(notes), at: .zero)
        let accepted = try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        var kept = TaskRequest.refresh(notes.refreshID, notBefore: .t(60))
        kept.submittedAt = .t(1)
        #expect(accepted.reply == .accepted(kept))
        let rejected = try d.submit(notes, .refresh("com.example.notes.unlisted"), at: .t(2))
        #expect(rejected.reply == .rejected(identifier: "com.example.notes.unlisted", .notPermitted))
    }

    @Test("Events that are not calls with an answer reply nothing")
    func answerless() throws {
        var d = Driver()
        try d.send(.launch(notes, .foreground), at: .zero)
        #expect(d.lastReply == nil)
        try d.send(.tick, at: .t(1))
        #expect(d.lastReply == nil)
    }

    @Test("Every start of a process is a launch effect naming its reason and a new incarnation")
    func launchesCountIncarnations() throws {
        var d = Driver()
        #expect(try d.send(.launch(notes, .background), at: .zero).first == .launch(notes, .system, .first))
        try d.send(.terminate(notes, .systemReclaimed), at: .t(1))
        #expect(
            try d.send(.launch(notes, .foreground), at: .t(2)).first == .launch(notes, .user, Incarnation(rawValue: 2))
        )
        #expect(d.system.incarnation(of: notes) == Incarnation(rawValue: 2))
        #expect(d.system.incarnation(of: "com.example.never") == Incarnation(rawValue: 0))
    }

    @Test("Leaving suspension is a resume effect of the same incarnation, before the state change")
    func resumeNamesTheIncarnation() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.background(notes, at: .t(10))
        #expect(d.state(notes) == .suspended)
        let effects = try d.send(.resumeInBackground(notes), at: .t(20))
        #expect(
            Array(effects.prefix(2)) == [
                .resume(notes, .first), .stateChanged(notes, from: .suspended, to: .background),
            ]
        )
        // Staying in the foreground or the background needs no resume.
        let again = try d.send(.enterForeground(notes), at: .t(21))
        #expect(!again.contains { if case .resume = $0 { true } else { false } })
    }
}
