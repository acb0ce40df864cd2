// Shared by the structure-aware libFuzzer targets (Fuzz/TransferResponses, Fuzz/StoredRows): reads
// a fuzzer's bytes as choices, so that a few bytes pick a meaningful value (a status, a field
// name, a number at a boundary) and the rest of the input is spent on structure, not on finding
// magic strings. An exhausted input reads as zeros, so every input is a complete case.

struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isExhausted: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }

    mutating func uint64() -> UInt64 { UInt64(uint32()) << 32 | UInt64(uint32()) }

    /// Numbers at the boundaries that matter, or any 64-bit pattern.
    static let interesting: [Int64] = [
        0, 1, 2, 9, 10, 100, 1000, 4096, 16383, 16384, 65536, 1 << 20, 4 << 20, Int64(Int32.max),
        Int64(Int32.max) + 1, 999_999_999_999_999_999, 1_000_000_000_000_000_000, Int64.max - 1, Int64.max, -1,
        Int64.min, Int64.min + 1, 1 << 53, 1 << 62,
    ]

    mutating func number() -> Int64 {
        let pick = Int(byte())
        if pick < Self.interesting.count { return Self.interesting[pick] }
        if pick < 128 { return Int64(pick - Self.interesting.count) }
        return Int64(bitPattern: uint64())
    }

    /// Up to `limit` bytes, read as UTF-8 (invalid sequences repaired).
    mutating func text(limit: Int = 255) -> String {
        let count = min(Int(byte()), limit)
        var scalars: [UInt8] = []
        for _ in 0..<count where !isExhausted { scalars.append(byte()) }
        return String(decoding: scalars, as: UTF8.self)
    }

    /// One of `table`, or (for the bytes past its end) a text of the input's own.
    mutating func pick(_ table: [String]) -> String {
        let choice = Int(byte())
        return choice < table.count ? table[choice] : text()
    }

    mutating func pick<Value>(_ table: [Value]) -> Value {
        table[Int(byte()) % table.count]
    }
}

/// A property of a fuzz target: when it does not hold, the message is printed and the process
/// stops (a `precondition`'s message is dropped in the -O builds the scripts make).
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
