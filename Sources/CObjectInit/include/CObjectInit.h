// `[[cls alloc] init]` for swift-corelibs-foundation's NSObject, which Swift cannot say: creating
// an object of a class known only at run time needs a `required` initializer in Swift, and
// UIKit's `UIResponder.init()` is not one. BackgroundExecution's `NSObjectInit` is the only caller.
#ifndef C_OBJECT_INIT_H
#define C_OBJECT_INIT_H

#if defined(__linux__)
/// Calls the allocating entry point of `NSObject.init()` found in `metatype`'s vtable, as the
/// Objective-C message `init` does on iOS. That slot holds the class's own `init()` (written,
/// `convenience override`, or inherited together with its stored properties' defaults) or, when
/// the class has no `init()` (only `init(store:)`, say), the compiler's stub that stops the
/// process with "Use of unimplemented initializer 'init()' for class '…'", as on iOS.
/// `metatype` must be the metadata of a subclass of Foundation's NSObject, and the call must be
/// made where that class's `init()` may run (its isolation). Returns the new object at +1.
void *_Nonnull coi_alloc_init(const void *_Nonnull metatype);
#endif

#endif
