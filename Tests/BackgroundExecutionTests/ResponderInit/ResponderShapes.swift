import BackgroundExecution
import Foundation

// Every initializer shape UIKit accepts in a `UIResponder` subclass, as app code writes it: this
// file compiling is the check that `UIResponder.init()` is UIKit's plain designated initializer
// (it was `required`, which rejected `override init()` and the `init(store:)` test double).
// ResponderInitTests creates each shape `@main` can run with, through the function `main()` uses.

/// A dependency an app delegate is given, as tests inject one.
final class ShapeStore {
    let name: String

    init(name: String) {
        self.name = name
    }
}

/// No initializer: the inherited `init()` sets the stored properties' defaults.
class NoInitDelegate: UIResponder, UIApplicationDelegate {
    var window: String?
    var launches = 0
}

/// Its own `init()`, as a well-known RSS reader's app delegate writes it.
class OverrideInitDelegate: UIResponder, UIApplicationDelegate {
    let store: [String]

    override init() {
        store = ["from init()"]
        super.init()
    }
}

/// `required`, as the one word that was needed before; still allowed.
class RequiredInitDelegate: UIResponder, UIApplicationDelegate {
    var count = 41

    required override init() {
        super.init()
        count += 1
    }
}

/// `final`, no initializer.
final class FinalDelegate: UIResponder, UIApplicationDelegate {
    var name = "final default"
}

/// `final`, its own `init()`.
final class FinalOverrideInitDelegate: UIResponder, UIApplicationDelegate {
    let name: String

    override init() {
        name = "final init()"
        super.init()
    }
}

/// Stored properties with defaults of several kinds, a lazy one among them.
class DefaultsDelegate: UIResponder, UIApplicationDelegate {
    var items = [1, 2, 3]
    var flag = true
    var optional: Int? = 7
    let store = ShapeStore(name: "default store")
    lazy var summary = "\(items.count) items"
}

/// The test-double pattern made `@main`-able: a designated `init(store:)` and the
/// `override convenience init()` that gives it the live store (the README's advice).
class ConvenienceInitDelegate: UIResponder, UIApplicationDelegate {
    let store: ShapeStore

    init(store: ShapeStore) {
        self.store = store
        super.init()
    }

    override convenience init() {
        self.init(store: ShapeStore(name: "live"))
    }
}

/// `init(store:)` and a designated `override init()` side by side.
class DesignatedPairDelegate: UIResponder, UIApplicationDelegate {
    let store: ShapeStore

    init(store: ShapeStore) {
        self.store = store
        super.init()
    }

    override init() {
        store = ShapeStore(name: "designated init()")
        super.init()
    }
}

/// Only a convenience initializer of its own, so it inherits `init()`.
class ConvenienceOnlyDelegate: UIResponder, UIApplicationDelegate {
    var number = 0

    convenience init(number: Int) {
        self.init()
        self.number = number
    }
}

/// A delegate base class with the `init()`; its subclass is the app's delegate.
class BaseDelegate: UIResponder, UIApplicationDelegate {
    var base: String

    override init() {
        base = "base init()"
        super.init()
    }
}

/// The subclass `@main` names: its own stored properties, the base's `init()`.
class LeafDelegate: BaseDelegate {
    var leaf = "leaf default"
}

/// A delegate that is not a responder, which UIKit accepts too.
class NSObjectDelegate: NSObject, UIApplicationDelegate {
    var name = "NSObject default"
}

/// A generic responder (never `@main`: generic types cannot be), created through its metatype.
class GenericDelegate<Value>: UIResponder, UIApplicationDelegate {
    var values: [Value] = []
}

/// The test double: only `init(store:)`. It compiles, as in UIKit; as an `@main` delegate it stops
/// the process at launch, as on iOS (ResponderInitTests.storeOnlyFaults runs that in a child).
class StoreOnlyDelegate: UIResponder, UIApplicationDelegate {
    let store: ShapeStore

    init(store: ShapeStore) {
        self.store = store
        super.init()
    }
}

/// A test double built on the test double: a subclass of `StoreOnlyDelegate` with its own
/// designated initializer.
final class StoreOnlySubclass: StoreOnlyDelegate {
    let extra: Int

    init(store: ShapeStore, extra: Int) {
        self.extra = extra
        super.init(store: store)
    }
}

/// A responder that is no delegate, with an initializer of its own.
class TitledResponder: UIResponder {
    let title: String

    init(title: String) {
        self.title = title
        super.init()
    }
}
