// How Swift code compiled against a resilient class calls one of its methods, done by hand:
// `swift_lookUpClassMethod` finds a method's slot in a class's vtable from the method's
// descriptor. The slot looked up is `NSObject.init()`'s allocating entry point, which every
// subclass overrides (with its own `init()`, the inherited one, or the unimplemented-initializer
// stub): checked on Swift 6.3.1 (x86_64) in debug and release builds, and guarded by
// BackgroundExecutionTests' ResponderInitTests.
#include "CObjectInit.h"

#if defined(__linux__)
// All three are resolved by the static linker, so a rename in Foundation is a link error, never a
// silent misbehaviour: the Swift runtime's entry point (libswiftCore exports it for the code the
// compiler emits), Foundation's class descriptor of NSObject and the method descriptor of
// `NSObject.init()`'s allocating entry point.
extern void *swift_lookUpClassMethod(const void *metadata, const void *method, const void *description);
extern const char coi_nsobject_init_allocator __asm__("$s10Foundation8NSObjectCACycfCTq");
extern const char coi_nsobject_descriptor __asm__("$s10Foundation8NSObjectCMn");

// An allocating initializer, `@convention(method) (@thick Self.Type) -> @owned Self`: the Swift
// calling convention with the metatype as `self` (swiftself), the result at +1.
typedef void *_Nonnull (*coi_allocating_init)(const void *_Nonnull metatype __attribute__((swift_context)))
    __attribute__((swiftcall));

void *_Nonnull coi_alloc_init(const void *_Nonnull metatype) {
    coi_allocating_init init =
        (coi_allocating_init)swift_lookUpClassMethod(metatype, &coi_nsobject_init_allocator, &coi_nsobject_descriptor);
    return init(metatype);
}
#endif
