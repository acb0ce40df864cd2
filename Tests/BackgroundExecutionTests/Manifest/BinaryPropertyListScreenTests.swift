import BackgroundExecution
import Foundation
import Testing

@Suite("App manifest: binary property lists that crash Foundation's parser")
struct BinaryPropertyListScreenTests {
    /// A binary property list of `objects` (encoded objects, references one byte wide), object 0 at the top.
    private static func binaryPlist(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [UInt64(objects.count), 0, table] {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return Data(bytes)
    }

    @Test("A binary plist holding a set is malformed, not a crash (swift-corelibs-foundation segfaults on sets)")
    func setIsRefused() throws {
        let set = Self.binaryPlist([[0xC1, 0x01], [0x51, UInt8(ascii: "a")]])
        let error = try ManifestFixtures.error(loading: set)
        #expect(error.code == .malformed)
        #expect(
            error.problem == "a binary property list that cannot be loaded: object 0 is a set, which no manifest holds"
        )
        let nested = Self.binaryPlist([[0xA1, 0x01], [0xC1, 0x02], [0x51, UInt8(ascii: "a")]])
        #expect(try ManifestFixtures.error(loading: nested, format: .xmlPropertyList).code == .malformed)
    }

    @Test("A valid Info.plist with its top dictionary's marker flipped to a set is malformed")
    func flippedDictionaryIsRefused() throws {
        let root = try PropertyListSerialization.propertyList(from: Data(ManifestFixtures.xml.utf8), format: nil)
        var bytes = [UInt8](try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0))
        let index = try #require(bytes.indices.first { $0 >= 8 && bytes[$0] & 0xF0 == 0xD0 })
        bytes[index] = 0xC0 | bytes[index] & 0x0F
        #expect(try ManifestFixtures.error(loading: Data(bytes)).code == .malformed)
    }

    @Test("A binary plist whose trailer or offset table points outside the data is malformed")
    func damagedTrailer() throws {
        var bytes = [UInt8](Self.binaryPlist([[0x51, UInt8(ascii: "a")]]))
        bytes[bytes.count - 1] = 0xFF
        #expect(try ManifestFixtures.error(loading: Data(bytes)).problem.hasSuffix("does not fit in the data"))
        bytes = [UInt8](Self.binaryPlist([[0x51, UInt8(ascii: "a")]]))
        bytes[bytes.count - 32 + 6] = 0
        #expect(try ManifestFixtures.error(loading: Data(bytes)).problem.hasSuffix("its trailer is damaged"))
        #expect(try ManifestFixtures.error(loading: Data("bplist00".utf8)).problem.hasSuffix("it is too short"))
    }

    @Test("A binary plist with a sound structure but a damaged object is malformed, as the parser reports")
    func damagedObject() throws {
        let truncatedString = Self.binaryPlist([[0x5F, 0x10, 0xFF, UInt8(ascii: "a")]])
        let error = try ManifestFixtures.error(loading: truncatedString)
        #expect(error.code == .malformed)
        #expect(error.problem == "not a binary property list")
    }
}
