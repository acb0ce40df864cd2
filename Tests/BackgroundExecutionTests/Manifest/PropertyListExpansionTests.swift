import BackgroundExecution
import Foundation
import Testing

/// Issue 14, finding 5: a 229-byte binary `Info.plist` cost 10 s and 1.6 GB (nested arrays that
/// each refer to the next twice). The expanded size is bounded before decoding, binary and XML.
@Suite("App manifest: property lists that expand too far are refused before decoding")
struct PropertyListExpansionTests {
    /// A binary property list of `objects`, object 0 at the top, one-byte references, two-byte offsets.
    static func binaryPlist(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = UInt64(bytes.count)
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        for value in [UInt64(objects.count), 0, table] {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return Data(bytes)
    }

    /// An array object referring to `references` (one byte each).
    static func array(_ references: [Int]) -> [UInt8] {
        let count = references.count
        let header: [UInt8] = count < 15 ? [0xA0 | UInt8(count)] : [0xAF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
        return header + references.map { UInt8($0) }
    }

    static let string: [UInt8] = [0x51, UInt8(ascii: "a")]

    @Test("Exponential: each of 40 nested arrays refers to the next twice (2^41 objects in about 130 bytes)")
    func exponential() throws {
        let depth = 40
        let objects = (0..<depth).map { Self.array([$0 + 1, $0 + 1]) } + [Self.string]
        let data = Self.binaryPlist(objects)
        #expect(data.count < 250)
        let error = try ManifestFixtures.error(loading: data)
        #expect(error.code == .malformed)
        #expect(error.problem.hasSuffix("its shared references expand to more than 100000 objects"))
    }

    @Test("Quadratic: an array of 400 references to one array of 400 (160,401 objects) is refused; 300 (90,301) is not")
    func quadratic() throws {
        let refused = Self.binaryPlist([
            Self.array(Array(repeating: 1, count: 400)), Self.array(Array(repeating: 2, count: 400)), Self.string,
        ])
        #expect(try ManifestFixtures.error(loading: refused).problem.hasSuffix("expand to more than 100000 objects"))
        let accepted = Self.binaryPlist([
            Self.array(Array(repeating: 1, count: 300)), Self.array(Array(repeating: 2, count: 300)), Self.string,
        ])
        let error = try ManifestFixtures.error(loading: accepted)
        #expect(error.code == .notADictionary, "decoded, and then refused for its shape: \(error)")
    }

    @Test("An array that contains itself, directly or through another, is refused")
    func cycles() throws {
        let direct = Self.binaryPlist([Self.array([0])])
        #expect(try ManifestFixtures.error(loading: direct).problem.hasSuffix("object 0 contains itself"))
        let indirect = Self.binaryPlist([Self.array([1]), Self.array([0])])
        #expect(try ManifestFixtures.error(loading: indirect).problem.hasSuffix("contains itself"))
        let missing = Self.binaryPlist([Self.array([7])])
        #expect(try ManifestFixtures.error(loading: missing).problem.hasSuffix("refers to a missing object"))
    }

    @Test("XML: more than 100,000 elements are refused before parsing; a real Info.plist loads")
    func xmlElements() throws {
        let many =
            "<?xml version=\"1.0\"?><plist version=\"1.0\"><array>"
            + String(repeating: "<true/>", count: 100_001) + "</array></plist>"
        let error = try ManifestFixtures.error(loading: Data(many.utf8))
        #expect(error.code == .malformed)
        #expect(error.problem.hasSuffix("it has more than 100000 elements"))
        _ = try AppManifest(data: Data(ManifestFixtures.xml.utf8))
    }
}
