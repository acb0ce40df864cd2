/// One property of one object of one service on the D-Bus system bus, as the desktop sources read
/// it (`org.freedesktop.DBus.Properties.Get`, then `PropertiesChanged`).
struct BusProperty: Sendable, Hashable {
    var service: String
    var path: String
    var interface: String
    var name: String

    /// power-profiles-daemon under its current name (0.20 and later) and its original one:
    /// `ActiveProfile` (`s`), `power-saver` being Low Power Mode.
    static let powerProfiles = [
        BusProperty(
            service: "org.freedesktop.UPower.PowerProfiles",
            path: "/org/freedesktop/UPower/PowerProfiles",
            interface: "org.freedesktop.UPower.PowerProfiles",
            name: "ActiveProfile"
        ),
        BusProperty(
            service: "net.hadess.PowerProfiles",
            path: "/net/hadess/PowerProfiles",
            interface: "net.hadess.PowerProfiles",
            name: "ActiveProfile"
        ),
    ]
    /// systemd-logind.
    static let login = "org.freedesktop.login1"
    /// logind's `IdleHint` (`b`): every session is idle.
    static let idleHint = BusProperty(
        service: login,
        path: "/org/freedesktop/login1",
        interface: "org.freedesktop.login1.Manager",
        name: "IdleHint"
    )
    /// The session in front of the user: seat0's `ActiveSession` (`(so)`, an empty id for none).
    static let activeSession = BusProperty(
        service: login,
        path: "/org/freedesktop/login1/seat/seat0",
        interface: "org.freedesktop.login1.Seat",
        name: "ActiveSession"
    )
    /// NetworkManager's `Metered` (`u`, `NMMetered`: 0 unknown, 1 yes, 2 no, 3 guess yes, 4 guess no).
    static let metered = BusProperty(
        service: "org.freedesktop.NetworkManager",
        path: "/org/freedesktop/NetworkManager",
        interface: "org.freedesktop.NetworkManager",
        name: "Metered"
    )

    /// The properties read from the start, in a fixed order.
    static let watched = powerProfiles + [idleHint, activeSession, metered]

    /// A session's `LockedHint` (`b`).
    static func locked(_ session: String) -> BusProperty {
        BusProperty(service: login, path: session, interface: "org.freedesktop.login1.Session", name: "LockedHint")
    }

    /// The match rule for this object's `PropertiesChanged` signals, from the service only (the
    /// bus matches `sender` against the name's current owner).
    var changesRule: String {
        "type='signal',sender='\(service)',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',path='\(path)'"
    }

    /// The match rule for the service's owner changing (it starts, stops or restarts).
    static func ownerRule(_ service: String) -> String {
        "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service)'"
    }
}
