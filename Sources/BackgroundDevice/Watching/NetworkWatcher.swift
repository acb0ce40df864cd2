import Glibc

/// Wakes when a link or an address or route changes: an rtnetlink socket (`AF_NETLINK`,
/// `NETLINK_ROUTE`) bound to `RTMGRP_LINK` and the IPv4/IPv6 address and route groups. Each
/// wake-up means "re-read ``SysfsNetworkProbe``"; a lost-messages error (`ENOBUFS`) counts as a
/// change so nothing is missed.
public final class NetworkWatcher: DeviceWatcher {
    private let thread: PollThread

    /// A watcher; the socket opens in ``start(_:)``.
    public init() throws(DeviceError) {
        thread = try PollThread(name: "bg-network")
    }

    deinit {
        thread.stop()
    }

    /// rtnetlink message types that mean a change: `RTM_NEWLINK`…`RTM_DELADDR` (16…21) and
    /// `RTM_NEWROUTE`, `RTM_DELROUTE` (24, 25).
    static func isChange(_ type: UInt16) -> Bool {
        (16...21).contains(type) || type == 24 || type == 25
    }

    public func start(_ handler: @escaping @Sendable (WatchEvent) -> Void) throws(DeviceError) {
        let socket = try NetlinkSocket(
            family: NetlinkSocket.route,
            groups: NetlinkSocket.linkAndAddressGroups,
            name: "rtnetlink"
        )
        let source = PollThread.Source(descriptor: socket.descriptor, events: Int16(POLLIN)) { _ in
            do throws(DeviceError) {
                let datagrams = try socket.drain()
                let changed = datagrams.contains { datagram in
                    datagram.isEmpty || NetlinkSocket.messageTypes(in: datagram).contains(where: Self.isChange)
                }
                if changed { handler(.changed) }
            } catch {
                handler(.failed(error))
            }
        }
        try thread.start(.init(sources: { [source] }, failed: { handler(.failed($0)) }))
    }

    public func stop() {
        thread.stop()
    }
}
