import BackgroundExecution
import Foundation

/// What each delegate prints at launch: the state its initializer left, then the process ends.
@MainActor
func reportLaunch(_ line: String) -> Never {
    print(line)
    fflush(nil)
    exit(0)
}

/// A dependency given to the delegate.
final class AppStore {
    let name: String

    init(name: String) {
        self.name = name
    }
}

final class OverrideInitAppDelegate: UIResponder, UIApplicationDelegate {
    let origin: String
    var launches = 0

    override init() {
        origin = "override init()"
        super.init()
    }

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        launches += 1
        reportLaunch("launched origin=\(origin) launches=\(launches)")
    }
}

class ConvenienceInitAppDelegate: UIResponder, UIApplicationDelegate {
    let store: AppStore

    init(store: AppStore) {
        self.store = store
        super.init()
    }

    override convenience init() {
        self.init(store: AppStore(name: "live"))
    }

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        reportLaunch("launched store=\(store.name)")
    }
}

class StoreOnlyAppDelegate: UIResponder, UIApplicationDelegate {
    let store: AppStore

    init(store: AppStore) {
        self.store = store
        super.init()
    }

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        reportLaunch("launched store=\(store.name)")
    }
}

/// A base with only `init(store:)`, whose subclass cannot `override init()` (the base has none
/// to override) and declares a new one instead.
class StoreOnlyBaseDelegate: UIResponder, UIApplicationDelegate {
    let store: AppStore

    init(store: AppStore) {
        self.store = store
        super.init()
    }
}

/// Were its `init()` called (it is on iOS), it would print so and end the process.
final class LeafAddsInitAppDelegate: StoreOnlyBaseDelegate {
    init() {
        super.init(store: AppStore(name: "leaf"))
        reportLaunch("leaf init()")
    }
}
