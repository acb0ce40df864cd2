import BackgroundCore
import Testing

@Suite("Assertion ledger")
struct AssertionLedgerTests {
    @Test("Identifiers are 1, 2, 3… in the order the app begins its assertions")
    func identifiersCountUp() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        #expect(try d.begin(notes, at: .t(1)) == .granted(.id(1)))
        #expect(try d.begin(notes, at: .t(2)) == .granted(.id(2)))
        #expect(try d.begin(notes, at: .t(3)) == .granted(.id(3)))
        #expect(d.heldIDs(notes) == [1, 2, 3])
    }

    @Test("Identifiers are never reused, even after an assertion ends")
    func identifiersAreNotReused() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.end(notes, 1, at: .t(2))
        #expect(try d.begin(notes, at: .t(3)) == .granted(.id(2)))
    }

    @Test("Each app has its own identifiers: two apps each get identifier 1")
    func perAppIdentifiers() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.open(mail, at: .zero)
        #expect(try d.begin(notes, at: .t(1)) == .granted(.id(1)))
        #expect(try d.begin(mail, at: .t(1)) == .granted(.id(1)))
        #expect(try d.begin(notes, at: .t(2)) == .granted(.id(2)))
    }

    @Test("One app cannot end another's assertion: ending identifier 1 only affects the caller's ledger")
    func appsAreIsolated() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.open(mail, at: .zero)
        try d.begin(mail, at: .t(1))
        #expect(try d.end(notes, 1, at: .t(2)).logs.map(\.level) == [.error])
        #expect(d.heldIDs(mail) == [1])
        try d.begin(notes, at: .t(3))
        #expect(try d.end(notes, 1, at: .t(4)) == [])
        #expect(d.heldIDs(notes) == [])
        #expect(d.heldIDs(mail) == [1])
    }

    @Test("Each assertion keeps its name, origin (fileID, line, function) and begin time")
    func assertionRecord() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, "Upload", at: .t(1, 250))
        try d.begin(notes, "Sync", handler: false, origin: Site.sync, at: .t(2))
        let held = d.system.assertions(of: notes)
        #expect(
            held == [
                Assertion(
                    id: .id(1),
                    name: "Upload",
                    origin: Site.upload,
                    beganAt: .t(1, 250),
                    hasExpirationHandler: true
                ),
                Assertion(id: .id(2), name: "Sync", origin: Site.sync, beganAt: .t(2), hasExpirationHandler: false),
            ]
        )
        #expect(held.first?.origin.fileID == "Notes/UploadManager.swift")
        #expect(held.first?.origin.line == 42)
        #expect(held.first?.origin.function == "upload()")
    }

    @Test("UIKit's message for an unknown identifier, word for word")
    func unknownMessageText() {
        #expect(
            BackgroundSystem.unknownAssertionMessage(.id(7))
                == "Can't end BackgroundTask: no background task exists with identifier 7 (0x7), or it may have "
                + "already been ended. Break in UIApplicationEndBackgroundTaskError() to debug."
        )
    }

    @Test(
        "The identifier is printed in decimal and in lowercase hexadecimal",
        arguments: [(255, "255 (0xff)"), (16, "16 (0x10)"), (1, "1 (0x1)")]
    )
    func identifierDescription(raw: Int, text: String) {
        #expect(AssertionID.id(raw).description == text)
        #expect(BackgroundSystem.unknownAssertionMessage(.id(raw)).contains("identifier \(text), or"))
    }

    @Test("Ending an unknown identifier only logs UIKit's message as an error")
    func endUnknown() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        let effects = try d.end(notes, 7, at: .t(2))
        let message = BackgroundSystem.unknownAssertionMessage(.id(7))
        #expect(effects == [.log(LogRecord(.error, app: notes, message))])
        #expect(d.heldIDs(notes) == [1])
        #expect(d.state(notes) == .active)
    }

    @Test("Ending an identifier twice logs UIKit's message the second time and changes nothing")
    func endTwice() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.begin(notes, at: .t(1))
        try d.background(notes, at: .t(2))
        #expect(try d.end(notes, 1, at: .t(3)) == [])
        let again = try d.end(notes, 1, at: .t(4))
        #expect(again == [.log(LogRecord(.error, app: notes, BackgroundSystem.unknownAssertionMessage(.id(1))))])
        #expect(d.heldIDs(notes) == [2])
        #expect(d.state(notes) == .background)
        #expect(d.remaining(notes, at: .t(4)) == .seconds(28))
    }

    @Test("Ending the last assertion in the foreground changes nothing else")
    func endLastInForeground() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        #expect(try d.end(notes, 1, at: .t(2)) == [])
        #expect(d.state(notes) == .active)
    }

    @Test("Ending from the middle keeps the others in begin order")
    func endFromMiddle() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        for second in 1...5 { try d.begin(notes, at: .t(Int64(second))) }
        try d.end(notes, 3, at: .t(6))
        try d.end(notes, 1, at: .t(6))
        #expect(d.heldIDs(notes) == [2, 4, 5])
    }

    @Test("The ledger on its own: begin appends, end removes once, removeAll empties in begin order")
    func ledgerValue() {
        var ledger = AssertionLedger()
        #expect(ledger.nextID == .id(1))
        let first = ledger.begin(name: "A", origin: Site.upload, at: .t(1), hasExpirationHandler: true)
        let second = ledger.begin(name: "B", origin: Site.sync, at: .t(2), hasExpirationHandler: false)
        #expect([first, second] == [.id(1), .id(2)])
        #expect(ledger.count == 2 && ledger.contains(.id(2)))
        #expect(ledger.end(.id(1))?.name == "A")
        #expect(ledger.end(.id(1)) == nil)
        #expect(ledger.assertion(.id(2))?.beganAt == .t(2))
        #expect(ledger.removeAll().map(\.id) == [.id(2)])
        #expect(ledger.isEmpty && ledger.nextID == .id(3))
    }
}
