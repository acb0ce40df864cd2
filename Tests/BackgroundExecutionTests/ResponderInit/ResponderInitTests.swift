import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// `UIResponder.init()` is UIKit's plain designated initializer, and `main()` still creates an
/// `@main` delegate of every shape that has an `init()`, with that `init()` (issue 24). The
/// in-process tests call `ApplicationMain.makeDelegate`, the function `main()` creates the
/// delegate with; a delegate with no `init()` stops its process, so that runs in a child
/// (`responder-init-test-app`, which calls the delegate's `main()` as `@main` does).
@Suite("UIResponder's init() is UIKit's; main() creates the delegate with it")
@MainActor
struct ResponderInitTests {
    func make<Delegate: UIApplicationDelegate>(_ type: Delegate.Type) throws -> Delegate {
        let delegate = try #require(ApplicationMain.makeDelegate(type))
        #expect(Swift.type(of: delegate) == type)
        return try #require(delegate as? Delegate)
    }

    @Test("No initializer: the inherited init() sets the stored properties' defaults")
    func noInit() throws {
        let delegate = try make(NoInitDelegate.self)
        #expect(delegate.window == nil)
        #expect(delegate.launches == 0)
    }

    @Test("override init() is the one called")
    func overrideInit() throws {
        #expect(try make(OverrideInitDelegate.self).store == ["from init()"])
    }

    @Test("required override init() is the one called, after the defaults")
    func requiredInit() throws {
        #expect(try make(RequiredInitDelegate.self).count == 42)
    }

    @Test("final classes, with and without their own init()")
    func finalClasses() throws {
        #expect(try make(FinalDelegate.self).name == "final default")
        #expect(try make(FinalOverrideInitDelegate.self).name == "final init()")
    }

    @Test("Stored properties with defaults, a lazy one among them, are initialised")
    func storedDefaults() throws {
        let delegate = try make(DefaultsDelegate.self)
        #expect(delegate.items == [1, 2, 3])
        #expect(delegate.flag)
        #expect(delegate.optional == 7)
        #expect(delegate.store.name == "default store")
        #expect(delegate.summary == "3 items")
    }

    @Test("init(store:) with override convenience init(): the convenience init() gives the live store")
    func convenienceInit() throws {
        #expect(try make(ConvenienceInitDelegate.self).store.name == "live")
        #expect(ConvenienceInitDelegate(store: ShapeStore(name: "test double")).store.name == "test double")
    }

    @Test("init(store:) and a designated override init(): init() is the one called")
    func designatedPair() throws {
        #expect(try make(DesignatedPairDelegate.self).store.name == "designated init()")
    }

    @Test("A convenience init(number:) of its own: the inherited init() is called")
    func convenienceOnly() throws {
        #expect(try make(ConvenienceOnlyDelegate.self).number == 0)
        #expect(ConvenienceOnlyDelegate(number: 9).number == 9)
    }

    @Test("A subclass of a delegate base: the base's init(), then the subclass's defaults")
    func subclassOfBase() throws {
        let delegate = try make(LeafDelegate.self)
        #expect(delegate.base == "base init()")
        #expect(delegate.leaf == "leaf default")
    }

    @Test("A delegate that inherits from NSObject, not UIResponder, is created too")
    func nsObjectDelegate() throws {
        #expect(try make(NSObjectDelegate.self).name == "NSObject default")
    }

    @Test("A generic subclass, and a UIResponder.Type holding a subclass, create the dynamic class")
    func throughMetatypes() throws {
        #expect(try make(GenericDelegate<Int>.self).values.isEmpty)
        let responderType: UIResponder.Type = ConvenienceInitDelegate.self
        let responder = NSObjectInit.make(responderType)
        #expect((responder as? ConvenienceInitDelegate)?.store.name == "live")
    }

    @Test("A created delegate is released when the last reference goes: created at +1, balanced")
    func released() {
        weak var created: ConvenienceInitDelegate?
        for _ in 0..<1_000 {
            let delegate = NSObjectInit.make(ConvenienceInitDelegate.self)
            created = delegate
            withExtendedLifetime(delegate) { #expect(created != nil) }
        }
        #expect(created == nil)
    }

    @Test("Shapes with an init() launch from main() in a process of their own")
    func launchesInAChild() async throws {
        let overrideInit = try await runApp("override-init")
        #expect(overrideInit.status == 0, "stderr: \(overrideInit.error)")
        #expect(overrideInit.output == "launched origin=override init() launches=1\n")
        let convenience = try await runApp("convenience-init")
        #expect(convenience.status == 0, "stderr: \(convenience.error)")
        #expect(convenience.output == "launched store=live\n")
    }

    @Test("An @main delegate with only init(store:) stops at launch with UIKit's message, naming the class")
    func storeOnlyFaults() async throws {
        let result = try await runApp("store-only")
        #expect(result.status != 0)
        #expect(result.output.isEmpty)
        #expect(
            result.error.contains(
                "Use of unimplemented initializer 'init()' for class 'responder_init_test_app.StoreOnlyAppDelegate'"
            ),
            "stderr: \(result.error)"
        )
    }

    @Test("Linux differs: an init() a subclass adds to a base with only init(store:) is not reached")
    func initAddedBySubclass() async throws {
        let result = try await runApp("leaf-adds-init")
        #expect(result.status != 0)
        #expect(!result.output.contains("leaf init()"))
        #expect(
            result.error.contains(
                "Use of unimplemented initializer 'init()' for class 'responder_init_test_app.StoreOnlyBaseDelegate'"
            ),
            "stderr: \(result.error)"
        )
    }

    /// Runs `responder-init-test-app` with `shape`; no backtrace (the message is all that counts,
    /// and symbolicating one takes seconds).
    func runApp(_ shape: String) async throws -> ChildProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let result = try await runChildProcess(
            builtExecutable("responder-init-test-app"),
            [shape],
            environment: environment,
            timeout: .seconds(30)
        )
        #expect(!result.timedOut)
        return result
    }
}
