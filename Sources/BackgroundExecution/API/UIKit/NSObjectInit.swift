import Foundation

#if os(Linux)
import CObjectInit
#endif

/// `[[cls alloc] init]`: creates an object of a class known only at run time with its `init()`,
/// as `UIApplicationMain` creates the app delegate from its class name.
///
/// Swift alone cannot: creating an object from a metatype needs a `required` initializer, and
/// UIKit's `UIResponder.init()` is not one. So the call goes through the class's vtable entry for
/// `NSObject.init()` (the C target `CObjectInit`), as the Objective-C message does on iOS: a class
/// gets its written `init()`, its `convenience override init()`, or the inherited one that sets its
/// stored properties' defaults.
package enum NSObjectInit {
    /// Creates an object of `type` (or of the subclass it is at run time) with its `init()`.
    ///
    /// A class that has no `init()` (it declares only `init(store:)`, say) stops the process
    /// with Swift's "Use of unimplemented initializer 'init()' for class '…'", as it does on iOS:
    /// the compiler's stub in that class's vtable traps before anything here could see it, so
    /// this fault does not go through ``BackgroundFault/hook``.
    @MainActor
    package static func make<T: NSObject>(_ type: T.Type) -> T {
        #if os(Linux)
        let object = coi_alloc_init(unsafeBitCast(type as AnyClass, to: UnsafeRawPointer.self))
        return Unmanaged<T>.fromOpaque(object).takeRetainedValue()
        #else
        // Darwin (not tested here): the Objective-C runtime dispatches `+new` to `-init` itself.
        return type.perform(NSSelectorFromString("new"))!.takeRetainedValue() as! T
        #endif
    }
}
