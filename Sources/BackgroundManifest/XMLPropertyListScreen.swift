import Foundation

/// Bounds the size of an XML property list before Foundation parses it.
///
/// XML property lists have no shared references and Foundation's parser refuses DTD entities,
/// so what the parser builds grows with the number of elements: a 1 MiB file of `<true/>` is
/// 150,000 objects. The elements are counted (every `<` that opens a tag) and the list is
/// refused above ``BinaryPropertyListScreen/maximumExpandedObjects``, the bound binary lists
/// have too.
enum XMLPropertyListScreen {
    /// Why `data` must not be given to the parser, or nil if it may be.
    static func problem(in data: Data) -> String? {
        let limit = BinaryPropertyListScreen.maximumExpandedObjects
        var elements = 0
        var previousWasOpen = false
        for byte in data {
            if previousWasOpen, byte != UInt8(ascii: "/"), byte != UInt8(ascii: "?"), byte != UInt8(ascii: "!") {
                elements += 1
                if elements > limit { return "it has more than \(limit) elements" }
            }
            previousWasOpen = byte == UInt8(ascii: "<")
        }
        return nil
    }
}
