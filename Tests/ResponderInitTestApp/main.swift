// responder-init-test-app: app delegates of several initializer shapes started as an `@main`
// delegate starts, by calling its type's `main()` (what `@main` compiles to), one per run, for
// BackgroundExecutionTests' ResponderInitTests. The argument names the delegate:
//
//   override-init      `override init()`: prints what its init set, exits 0
//   convenience-init   `init(store:)` + `override convenience init()`: the same
//   store-only         only `init(store:)`: stops at launch with Swift's
//                      "Use of unimplemented initializer 'init()' for class …", as on iOS
//   leaf-adds-init     a subclass adds `init()` to a base with only `init(store:)`: stops with
//                      that message naming the base (on iOS `-init` would reach the subclass)

import BackgroundExecution
import Foundation

let shape = CommandLine.arguments.dropFirst().first ?? ""
MainActor.assumeIsolated {
    switch shape {
    case "override-init": OverrideInitAppDelegate.main()
    case "convenience-init": ConvenienceInitAppDelegate.main()
    case "store-only": StoreOnlyAppDelegate.main()
    case "leaf-adds-init": LeafAddsInitAppDelegate.main()
    default:
        FileHandle.standardError.write(Data("unknown shape '\(shape)'\n".utf8))
        exit(64)
    }
}
