import BackgroundPosix
import Glibc

/// A non-blocking netlink socket bound to multicast groups: rtnetlink for links and addresses,
/// the kernel's uevents for power supplies.
final class NetlinkSocket: Sendable {
    /// `NETLINK_ROUTE`.
    static let route: Int32 = 0
    /// `NETLINK_KOBJECT_UEVENT`.
    static let kernelEvents: Int32 = 15
    /// rtnetlink groups (`linux/rtnetlink.h`): `RTMGRP_LINK`, `RTMGRP_IPV4_IFADDR`,
    /// `RTMGRP_IPV4_ROUTE`, `RTMGRP_IPV6_IFADDR`, `RTMGRP_IPV6_ROUTE`.
    static let linkAndAddressGroups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
    /// The kernel's uevent group (udev's re-broadcast is group 2 and is not read).
    static let kernelUeventGroup: UInt32 = 1

    /// The descriptor to poll.
    let descriptor: Int32
    private let name: String

    /// A socket of `family` (`route` or `kernelEvents`) bound to `groups`.
    init(family: Int32, groups: UInt32, name: String) throws(DeviceError) {
        self.name = name
        let socketType = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        descriptor = try SystemCall.checked("socket(AF_NETLINK)", name) { socket(AF_NETLINK, socketType, family) }
        // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid;
        // __u32 nl_groups; } (linux/netlink.h, which Glibc's Swift module does not export).
        var address: (UInt16, UInt16, UInt32, UInt32) = (UInt16(AF_NETLINK), 0, 0, groups)
        let bound = withUnsafeBytes(of: &address) {
            bind(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
        }
        if bound != 0 {
            let code = errno
            SystemCall.close(descriptor)
            throw .system(call: "bind", target: name, errno: code)
        }
    }

    deinit {
        SystemCall.close(descriptor)
    }

    /// Every datagram queued now (until `EAGAIN`), each at most 64 KiB. `ENOBUFS` (the kernel
    /// dropped messages because the socket's buffer overflowed) returns what was read plus an
    /// empty datagram, so the caller re-reads the state it watches.
    func drain() throws(DeviceError) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count: Int
            do {
                count = try SystemCall.checked("recv", name) {
                    buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                }
            } catch {
                if error.errno == EAGAIN { return datagrams }
                if error.errno == ENOBUFS {
                    datagrams.append([])
                    continue
                }
                throw error
            }
            datagrams.append(Array(buffer[0..<count]))
        }
    }

    /// The message types in an rtnetlink datagram (`RTM_NEWLINK` 16, `RTM_DELLINK` 17,
    /// `RTM_NEWADDR` 20, …), walking `nlmsghdr`s with their lengths checked.
    static func messageTypes(in datagram: [UInt8]) -> [UInt16] {
        var types: [UInt16] = []
        var offset = 0
        while offset + 16 <= datagram.count {
            let length = Int(
                UInt32(datagram[offset]) | UInt32(datagram[offset + 1]) << 8 | UInt32(datagram[offset + 2]) << 16
                    | UInt32(datagram[offset + 3]) << 24
            )
            guard length >= 16, offset + length <= datagram.count else { break }
            types.append(UInt16(datagram[offset + 4]) | UInt16(datagram[offset + 5]) << 8)
            offset += (length + 3) & ~3
        }
        return types
    }

    /// Whether a kernel uevent datagram (`ACTION@DEVPATH\0KEY=VALUE\0…`) is for `subsystem`.
    static func isUevent(_ datagram: [UInt8], subsystem: String) -> Bool {
        datagram.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "SUBSYSTEM=" + subsystem }
    }
}
