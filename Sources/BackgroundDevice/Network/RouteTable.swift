/// Parses the kernel's route listings, strictly: `/proc/net/route` (a header, then per IPv4
/// route of the main table `Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window
/// IRTT`, addresses as the in-memory `__be32` printed with `%08X`, flags with `%04X`) and `/proc/net/ipv6_route`
/// (no header; per route `destination prefix source prefix next-hop metric refcount use flags
/// interface`, addresses as 32 hexadecimal digits in network order). A line that does not have
/// that shape is a ``RouteTableError``, never a guessed route.
public enum RouteTable {
    /// The IPv4 routes in `text` (`/proc/net/route`).
    public static func ipv4(_ text: String) throws(RouteTableError) -> [NetworkRoute] {
        var routes: [NetworkRoute] = []
        for (index, line) in lines(text).enumerated() {
            if index == 0 {
                guard line.first == "Iface" else { throw .malformed(line: 1, "no Iface header") }
                continue
            }
            guard line.count == 11 else { throw .malformed(line: index + 1, "\(line.count) fields, expected 11") }
            guard let destination = hex32(line[1]), let flags = hex32(line[3], digits: 1...8), let mask = hex32(line[7])
            else {
                throw .malformed(line: index + 1, "destination, flags and mask must be hexadecimal")
            }
            // The kernel prints the network-order word as a host integer: its bytes in memory
            // are the address's bytes, whatever this machine's byte order.
            let bytes = withUnsafeBytes(of: destination) { Array($0) }
            let maskBytes = withUnsafeBytes(of: mask) { Array($0) }
            guard let prefix = prefixLength(maskBytes) else {
                throw .malformed(line: index + 1, "mask \(line[7]) is not a prefix")
            }
            routes.append(
                NetworkRoute(interface: line[0], family: .ipv4, destination: bytes, prefixLength: prefix, flags: flags)
            )
        }
        return routes
    }

    /// The IPv6 routes in `text` (`/proc/net/ipv6_route`).
    public static func ipv6(_ text: String) throws(RouteTableError) -> [NetworkRoute] {
        var routes: [NetworkRoute] = []
        for (index, line) in lines(text).enumerated() {
            guard line.count == 10 else { throw .malformed(line: index + 1, "\(line.count) fields, expected 10") }
            guard let destination = hexBytes(line[0], count: 16), let prefix = UInt8(line[1], radix: 16),
                prefix <= 128, line[1].count == 2, let flags = hex32(line[8])
            else { throw .malformed(line: index + 1, "destination, prefix length and flags must be hexadecimal") }
            routes.append(
                NetworkRoute(
                    interface: line[9],
                    family: .ipv6,
                    destination: destination,
                    prefixLength: Int(prefix),
                    flags: flags
                )
            )
        }
        return routes
    }

    /// Non-empty lines split on spaces and tabs.
    private static func lines(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }.filter { !$0.isEmpty }
    }

    /// A 32-bit word as hexadecimal digits, eight unless told (flags are `%04X` in
    /// `/proc/net/route`).
    private static func hex32(_ text: String, digits: ClosedRange<Int> = 8...8) -> UInt32? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy(\.isHexDigit) else { return nil }
        return UInt32(text, radix: 16)
    }

    /// Exactly `count` bytes as two hexadecimal digits each.
    private static func hexBytes(_ text: String, count: Int) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == count * 2, digits.allSatisfy(\.isHexDigit) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
        }
    }

    /// The number of leading one bits when the mask is ones then zeros, else `nil`.
    private static func prefixLength(_ mask: [UInt8]) -> Int? {
        let bits: [Bool] = mask.flatMap { byte -> [Bool] in (0..<8).map { (byte & (0x80 >> $0)) != 0 } }
        let ones = bits.prefix { $0 }.count
        return bits.dropFirst(ones).contains(true) ? nil : ones
    }
}

/// A route listing that is not in the kernel's format.
public enum RouteTableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Line `line` (from 1) is wrong; the text says how.
    case malformed(line: Int, String)

    public var description: String {
        switch self {
        case .malformed(let line, let why): return "line \(line): \(why)"
        }
    }
}

extension UInt8 {
    /// `0-9`, `a-f`, `A-F`.
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
