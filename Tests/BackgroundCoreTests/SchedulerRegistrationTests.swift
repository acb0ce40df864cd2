import BackgroundCore
import Testing

@Suite("BGTaskScheduler registration (R2.1–R2.3)")
struct SchedulerRegistrationTests {
    /// Notes installed and launched in the foreground, not yet finished launching.
    static func launching() throws -> Driver {
        var d = Driver()
        try d.install(notes)
        try d.send(.launch(notes, .foreground), at: .zero)
        return d
    }

    @Test(
        "An identifier not in BGTaskSchedulerPermittedIdentifiers is refused: register returns false, no crash"
    )
    func notPermittedIsRefused() throws {
        var d = try Self.launching()
        let effects = try d.send(.registerTaskHandler(notes, identifier: "com.example.notes.unlisted"), at: .t(1))
        #expect(effects.withoutLogs.isEmpty)
        #expect(d.lastReply == .refused(identifier: "com.example.notes.unlisted"))
        #expect(effects.faults.isEmpty)
        #expect(effects.logs.count == 1)
    }

    @Test("A permitted identifier registered before launch finishes is registered (register returns true)")
    func permittedIsRegistered() throws {
        var d = try Self.launching()
        let effects = try d.send(.registerTaskHandler(notes, identifier: notes.refreshID), at: .t(1))
        #expect(effects.withoutLogs.isEmpty)
        #expect(d.lastReply == .registered(identifier: notes.refreshID))
    }

    @Test("Registering after the app finished launching crashes with Apple's exact message")
    func lateRegistrationFaults() throws {
        var d = try Self.launching()
        try d.send(.finishLaunching(notes), at: .t(1))
        let effects = try d.send(.registerTaskHandler(notes, identifier: notes.refreshID), at: .t(2))
        #expect(effects.withoutLogs == [.fault(notes, message: BackgroundSystem.lateRegistrationMessage)])
        #expect(
            BackgroundSystem.lateRegistrationMessage
                == "All launch handlers must be registered before application finishes launching"
        )
    }

    @Test("Registering the same identifier twice crashes with \"Launch handler … has already been registered\"")
    func duplicateRegistrationFaults() throws {
        var d = try Self.launching()
        try d.send(.registerTaskHandler(notes, identifier: notes.refreshID), at: .t(1))
        let effects = try d.send(.registerTaskHandler(notes, identifier: notes.refreshID), at: .t(1))
        let expected = "Launch handler for task with identifier com.example.notes.refresh has already been registered"
        #expect(effects.withoutLogs == [.fault(notes, message: expected)])
        #expect(BackgroundSystem.duplicateRegistrationMessage(notes.refreshID) == expected)
    }

    @Test("Continued-processing identifiers matched by a wildcard entry may register after launch (iOS 26)")
    func continuedRegistersAfterLaunch() throws {
        var d = try Self.launching()
        try d.send(.finishLaunching(notes), at: .t(1))
        try d.send(.activate(notes), at: .t(1))
        let identifier = notes.continuedID("HD830D")
        let effects = try d.send(.registerTaskHandler(notes, identifier: identifier), at: .t(30))
        #expect(effects.withoutLogs.isEmpty)
        #expect(d.lastReply == .registered(identifier: identifier))
    }

    @Test("A new process registers again: handlers from the previous process are gone (DTS 728585)")
    func registrationIsPerProcess() throws {
        var d = try Self.launching()
        try d.send(.registerTaskHandler(notes, identifier: notes.refreshID), at: .t(1))
        try d.send(.finishLaunching(notes), at: .t(1))
        try d.send(.terminate(notes, .systemReclaimed), at: .t(2))
        try d.send(.launch(notes, .foreground), at: .t(3))
        let effects = try d.send(.registerTaskHandler(notes, identifier: notes.refreshID), at: .t(3))
        #expect(effects.withoutLogs.isEmpty)
        #expect(d.lastReply == .registered(identifier: notes.refreshID))
    }
}
