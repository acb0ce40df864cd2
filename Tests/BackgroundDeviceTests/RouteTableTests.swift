import BackgroundCore
import Foundation
import Testing

@testable import BackgroundDevice

@Suite("Routes from /proc/net/route and /proc/net/ipv6_route")
struct RouteTableTests {
    /// This machine's `/proc/net/route`: a default route via 192.0.2.1 and the subnet.
    static let ipv4 = [
        "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0                    ",
        "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0                    ",
    ]
    /// This machine's `/proc/net/ipv6_route`: fd00::/64, fe80::/64, a default via fd00::1, the
    /// local table's own addresses, multicast, and loopback's unreachable default.
    static let ipv6 = [
        "fd000000000000000000000000000000 40 00000000000000000000000000000000 00 "
            + "00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0",
        "fe800000000000000000000000000000 40 00000000000000000000000000000000 00 "
            + "00000000000000000000000000000000 00000100 00000002 00000000 00000001     eth0",
        "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
            + "fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0",
        "00000000000000000000000000000001 80 00000000000000000000000000000000 00 "
            + "00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo",
        "fd000000000000000000000000000002 80 00000000000000000000000000000000 00 "
            + "00000000000000000000000000000000 00000000 00000004 00000000 80200001     eth0",
        "ff000000000000000000000000000000 08 00000000000000000000000000000000 00 "
            + "00000000000000000000000000000000 00000100 00000003 00000000 00000001     eth0",
        "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
            + "00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo",
    ]

    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"

    @Test("This machine's IPv4 table: the default route and the subnet, both usable")
    func machineIPv4() throws {
        let routes = try RouteTable.ipv4(([Self.header] + Self.ipv4).joined(separator: "\n"))
        #expect(routes.map(\.description) == ["default route", "route 192.0.2.0/24"])
        #expect(routes.map(\.isUsable) == [true, true])
        #expect(routes.map(\.interface) == ["eth0", "eth0"])
        #expect(routes[0].flags == 3)
    }

    @Test("This machine's IPv6 table: local, multicast, link-local and reject routes are not usable")
    func machineIPv6() throws {
        let routes = try RouteTable.ipv6(Self.ipv6.joined(separator: "\n"))
        #expect(
            routes.map(\.description) == [
                "route fd00::/64", "route fe80::/64", "IPv6 default route", "route ::1/128", "route fd00::2/128",
                "route ff00::/8", "IPv6 default route",
            ]
        )
        #expect(routes.map(\.isUsable) == [true, false, true, false, false, false, false])
        #expect(routes.last?.interface == "lo")
    }

    @Test("Usable: up, not reject, local or anycast, not to a link-local or multicast range")
    func usable() {
        func route(
            _ destination: [UInt8],
            _ prefix: Int,
            _ flags: UInt32,
            _ family: NetworkRoute.Family = .ipv4
        )
            -> NetworkRoute
        {
            NetworkRoute(
                interface: "eth0",
                family: family,
                destination: destination,
                prefixLength: prefix,
                flags: flags
            )
        }
        #expect(route([0, 0, 0, 0], 0, 0x3).isUsable)
        #expect(!route([0, 0, 0, 0], 0, 0x2).isUsable)  // not RTF_UP
        #expect(!route([0, 0, 0, 0], 0, 0x201).isUsable)  // RTF_REJECT
        #expect(!route([169, 254, 0, 0], 16, 0x1).isUsable)  // IPv4 link-local
        #expect(!route([224, 0, 0, 0], 4, 0x1).isUsable)  // multicast
        #expect(route([10, 1, 0, 0], 16, 0x1).isUsable)
        let anycast = route([0xfd] + [UInt8](repeating: 0, count: 15), 128, 0x0010_0001, .ipv6)
        #expect(!anycast.isUsable)
        #expect(!route([0xfe, 0xbf] + [UInt8](repeating: 0, count: 14), 64, 0x1, .ipv6).isUsable)  // fe80::/10
        #expect(route([0xfe, 0xc0] + [UInt8](repeating: 0, count: 14), 64, 0x1, .ipv6).isUsable)
    }

    @Test("IPv6 addresses are written the RFC 5952 way")
    func ipv6Text() {
        func text(_ groups: [UInt16]) -> String {
            NetworkRoute.address(groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, .ipv6)
        }
        #expect(text([0, 0, 0, 0, 0, 0, 0, 0]) == "::")
        #expect(text([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1]) == "2001:db8::1:0:0:1")
        #expect(text([0x2001, 0xdb8, 0, 1, 1, 1, 1, 1]) == "2001:db8:0:1:1:1:1:1")
        #expect(text([0xfe80, 0, 0, 0, 0, 0, 0, 0]) == "fe80::")
        #expect(text([0, 0, 0, 0, 0, 0, 0, 1]) == "::1")
    }

    @Test(
        "Malformed listings are typed errors naming the line, never a guessed route",
        arguments: [
            ("eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0", "line 1: no Iface header"),
            (header + "\neth0\t00000000\t0003", "line 2: 3 fields, expected 11"),
            (
                header + "\neth0\tzz000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0",
                "line 2: destination, flags and mask must be hexadecimal"
            ),
            (
                header + "\neth0\t00000000\t010200C0\t0003\t0\t0\t0\t00FF00FF\t0\t0\t0",
                "line 2: mask 00FF00FF is not a prefix"
            ),
            (
                header + "\neth0\t00000000\t010200C0\t000000003\t0\t0\t0\t00000000\t0\t0\t0",
                "line 2: destination, flags and mask must be hexadecimal"
            ),
        ]
    )
    func malformedIPv4(text: String, message: String) {
        let error = #expect(throws: RouteTableError.self) { try RouteTable.ipv4(text) }
        #expect(error?.description == message)
    }

    @Test(
        "Malformed IPv6 listings are typed errors",
        arguments: [
            "fd00 40 0000 00 0000 00000100 00000001 00000000 00000001 eth0",
            String(ipv6[0].dropLast(5)),
            ipv6[0].replacingFirst("40", with: "81"),
            ipv6[0].replacingFirst("40", with: "4"),
            ipv6[0].replacingFirst("00000001     eth0", with: "0000000g     eth0"),
        ]
    )
    func malformedIPv6(text: String) {
        #expect(throws: RouteTableError.self) { try RouteTable.ipv6(text) }
    }

    @Test("An empty IPv6 listing and a header-only IPv4 listing are no routes")
    func empty() throws {
        #expect(try RouteTable.ipv6("") == [])
        #expect(try RouteTable.ipv4(Self.header + "\n") == [])
    }
}

extension String {
    /// The string with the first occurrence of `target` replaced.
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
