import Foundation

/// Checks the structure of a binary property list before Foundation parses it.
///
/// On Linux, swift-corelibs-foundation (seen with Swift 6.3.1) crashes the process with a
/// segmentation fault when a binary property list holds a non-empty set (object marker `0xC_`):
/// `PropertyListSerialization` bridges the `NSSet` to `Set<AnyHashable>` through a bad pointer.
/// A 28-byte file is enough, and flipping one bit of a valid `Info.plist` (dictionary `0xD4` to
/// set `0xC4`) produces one. No `Info.plist` holds a set (XML property lists cannot express one),
/// so a binary list with a set is refused before it reaches the parser.
///
/// The check reads the 32-byte trailer and every entry of the offset table, and looks at the
/// marker byte of each object, as the parser would find them. A list whose trailer or offset
/// table points outside the data is refused too, as damaged. Then it bounds how far shared
/// references expand (see ``expansionProblem(_:top:)``): 229 bytes of nested arrays that each
/// refer to the next twice decode to 2^n objects.
enum BinaryPropertyListScreen {
    private static let headerSize = 8
    private static let trailerSize = 32

    /// Why `data` must not be given to the parser, or nil if it may be.
    static func problem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        guard bytes.count >= headerSize + 1 + trailerSize else { return "it is too short" }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = integer(bytes, at: trailer + 8, size: 8)
        let topObject = integer(bytes, at: trailer + 16, size: 8)
        let tableOffset = integer(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount >= 1,
            topObject < objectCount, tableOffset >= UInt64(headerSize + 1)
        else { return "its trailer is damaged" }
        let (tableSize, overflow) = objectCount.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableSize <= UInt64(trailer), tableOffset <= UInt64(trailer) - tableSize else {
            return "its offset table does not fit in the data"
        }
        let table = Int(tableOffset)
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(objectCount))
        for index in 0..<Int(objectCount) {
            let offset = integer(bytes, at: table + index * offsetSize, size: offsetSize)
            guard offset >= UInt64(headerSize), offset < tableOffset else {
                return "object \(index) lies outside the object area"
            }
            if bytes[Int(offset)] & 0xF0 == 0xC0 {
                return "object \(index) is a set, which no manifest holds"
            }
            offsets.append(Int(offset))
        }
        let layout = Layout(bytes: bytes, offsets: offsets, referenceSize: referenceSize, end: table)
        return expansionProblem(layout, top: Int(topObject))
    }

    /// The big-endian unsigned integer of `size` bytes at `start`.
    static func integer(_ bytes: [UInt8], at start: Int, size: Int) -> UInt64 {
        bytes[start..<start + size].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
