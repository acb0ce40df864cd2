import PropertyBased
import Testing

@testable import BackgroundDevice

@Suite("PSI files")
struct PressureStallTests {
    @Test("The kernel's format parses, with and without a full line")
    func parses() throws {
        let text =
            "some avg10=1.50 avg60=0.25 avg300=100.00 total=123456789\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        let stall = try PressureStall(parsing: text)
        #expect(stall.some == .init(avg10: 1.5, avg60: 0.25, avg300: 100, total: 123_456_789))
        #expect(stall.full == .init(avg10: 0, avg60: 0, avg300: 0, total: 0))
        #expect(stall.rendered == text)
        let someOnly = try PressureStall(parsing: "some avg10=0.00 avg60=0.00 avg300=0.00 total=7")
        #expect(someOnly.full == nil)
    }

    @Test(
        "Malformed files are typed errors",
        arguments: [
            ("", PressureStallError.missingSome),
            ("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", .missingSome),
            ("some avg10=0.00 avg60=0.00 total=0\n", .unexpectedLine(number: 1, "some avg10=0.00 avg60=0.00 total=0")),
            ("some avg10=nan avg60=0.00 avg300=0.00 total=0", .badValue(line: 1, key: "avg10", "nan")),
            ("some avg10=1e2 avg60=0.00 avg300=0.00 total=0", .badValue(line: 1, key: "avg10", "1e2")),
            ("some avg10=-1.00 avg60=0.00 avg300=0.00 total=0", .badValue(line: 1, key: "avg10", "-1.00")),
            ("some avg10=100.01 avg60=0.00 avg300=0.00 total=0", .badValue(line: 1, key: "avg10", "100.01")),
            ("some avg10=0.00 avg60=0.00 avg300=0.00 total=+5", .badValue(line: 1, key: "total", "+5")),
            (
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999",
                .badValue(line: 1, key: "total", "99999999999999999999")
            ),
            (
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=0",
                .unexpectedLine(number: 2, "some avg10=0.00 avg60=0.00 avg300=0.00 total=0")
            ),
            (
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\nx",
                .unexpectedLine(number: 3, "x")
            ),
        ]
    )
    func malformed(text: String, error: PressureStallError) {
        #expect(throws: error) { try PressureStall(parsing: text) }
    }

    @Test("An oversized file is refused before it is split")
    func tooLong() {
        let text = String(repeating: "some ", count: 1000)
        #expect(throws: PressureStallError.tooLong(5000)) { try PressureStall(parsing: text) }
    }

    static let lines = zip(
        Gen.int(in: 0...10000),
        Gen.int(in: 0...10000),
        Gen.int(in: 0...10000),
        Gen.uint64(in: 0...UInt64.max)
    )

    @Test("Property: any file the kernel could write parses back to its values")
    func roundTrip() async {
        await propertyCheck(count: 500, input: Self.lines, Self.lines, Gen.bool) { some, full, hasFull in
            func line(_ values: (Int, Int, Int, UInt64)) -> PressureStall.Line {
                .init(
                    avg10: Double(values.0) / 100,
                    avg60: Double(values.1) / 100,
                    avg300: Double(values.2) / 100,
                    total: values.3
                )
            }
            let stall = PressureStall(some: line(some), full: hasFull ? line(full) : nil)
            let parsed = try? PressureStall(parsing: stall.rendered)
            #expect(parsed == stall, "\(stall.rendered)")
        }
    }

    static let mutations = zip(Gen.int(in: 0...200), Gen.uint8(in: 0...255), Gen.int(in: 0...3))

    @Test("Fuzz: mutated kernel output either parses within range or throws a typed error, never traps")
    func fuzz() async {
        let base = Array(
            "some avg10=12.34 avg60=5.00 avg300=0.10 total=987654\nfull avg10=1.00 avg60=0.50 avg300=0.01 total=12\n"
                .utf8
        )
        await propertyCheck(count: 2000, input: Self.mutations.array(of: 1...8)) { edits in
            var bytes = base
            for (position, byte, kind) in edits {
                let index = position % (bytes.count + 1)
                switch kind {
                case 0 where index < bytes.count: bytes[index] = byte
                case 1: bytes.insert(byte, at: index)
                case 2 where index < bytes.count: bytes.remove(at: index)
                default: bytes.insert(contentsOf: bytes[..<min(index, bytes.count)], at: index)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do throws(PressureStallError) {
                let stall = try PressureStall(parsing: text)
                for line in [stall.some] + (stall.full.map { [$0] } ?? []) {
                    #expect(
                        (0...100).contains(line.avg10) && (0...100).contains(line.avg60)
                            && (0...100).contains(line.avg300)
                    )
                }
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
