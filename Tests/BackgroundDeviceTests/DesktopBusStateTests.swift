import Testing

@testable import BackgroundDevice

/// The rules that turn the desktop services' replies and signals into conditions, with messages
/// built here (no bus): values, owners, who is trusted, a service leaving and coming back.
@Suite("D-Bus desktop sources: the rules")
struct DesktopBusStateTests {
    static let profiles = BusProperty.powerProfiles[0]

    /// A state that sent a `Get` for each watched property, serials 1…n in `watched` order.
    static func asked() -> DesktopBusState {
        var state = DesktopBusState()
        for (index, property) in BusProperty.watched.enumerated() { state.pending[UInt32(index + 1)] = property }
        return state
    }

    static func serial(of property: BusProperty) -> UInt32 {
        UInt32(BusProperty.watched.firstIndex(of: property)! + 1)
    }

    static func reply(to property: BusProperty, _ value: DBusValue, from sender: String) -> DBusMessage {
        var message = DBusMessage(kind: .methodReturn)
        message.replySerial = serial(of: property)
        message.sender = sender
        message.signature = "v"
        message.body = [value]
        return message
    }

    static func error(to property: BusProperty, _ name: String) -> DBusMessage {
        var message = DBusMessage(kind: .error)
        message.replySerial = serial(of: property)
        message.errorName = name
        return message
    }

    static func changed(_ property: BusProperty, _ value: DBusValue, from sender: String) -> DBusMessage {
        var message = DBusMessage(kind: .signal)
        message.sender = sender
        message.path = property.path
        message.interface = "org.freedesktop.DBus.Properties"
        message.member = "PropertiesChanged"
        message.signature = "sa{sv}as"
        message.body = [.string(property.interface), .dictionary([.string(property.name): value]), .array([])]
        return message
    }

    static func owner(_ service: String, _ owner: String, from sender: String = "org.freedesktop.DBus") -> DBusMessage {
        var message = DBusMessage(kind: .signal)
        message.sender = sender
        message.member = "NameOwnerChanged"
        message.signature = "sss"
        message.body = [.string(service), .string(""), .string(owner)]
        return message
    }

    @Test("nothing answered: every source unavailable with the service's reason; a bus problem wins")
    func unavailable() {
        var state = Self.asked()
        _ = state.apply([Self.error(to: Self.profiles, "org.freedesktop.DBus.Error.ServiceUnknown")])
        #expect(
            state.lowPowerMode.reason
                == "power-profiles-daemon not on the D-Bus system bus (org.freedesktop.DBus.Error.ServiceUnknown)"
        )
        #expect(state.metered.reason == "NetworkManager not on the D-Bus system bus (no answer)")
        state.problem = "no D-Bus system bus at unix:path=/x (…)"
        #expect(state.idleHint.reason == "no D-Bus system bus at unix:path=/x (…)")
    }

    @Test("power-saver is Low Power Mode; balanced is not; the older net.hadess name counts too")
    func lowPowerMode() {
        var state = Self.asked()
        #expect(
            state.apply([Self.reply(to: Self.profiles, .variant("s", .string("power-saver")), from: ":1.5")]).changed
        )
        #expect(state.lowPowerMode == .read(true, from: "D-Bus power-profiles-daemon ActiveProfile=power-saver"))
        _ = state.apply([Self.changed(Self.profiles, .variant("s", .string("balanced")), from: ":1.5")])
        #expect(state.lowPowerMode.value == false)

        var old = Self.asked()
        let hadess = BusProperty.powerProfiles[1]
        _ = old.apply([Self.reply(to: hadess, .variant("s", .string("power-saver")), from: ":1.9")])
        #expect(old.lowPowerMode.value == true)
    }

    @Test("a PropertiesChanged from anyone but the service's owner is ignored")
    func onlyTheOwner() {
        var state = Self.asked()
        _ = state.apply([Self.reply(to: Self.profiles, .variant("s", .string("balanced")), from: ":1.5")])
        let forged = state.apply([Self.changed(Self.profiles, .variant("s", .string("power-saver")), from: ":1.66")])
        #expect(!forged.changed)
        #expect(state.lowPowerMode.value == false)
        // NameOwnerChanged counts only from the bus itself.
        _ = state.apply([Self.owner(Self.profiles.service, "", from: ":1.66")])
        #expect(state.lowPowerMode.value == false)
    }

    @Test("a service leaving the bus drops its values; coming back is read again")
    func leavesAndReturns() {
        var state = Self.asked()
        _ = state.apply([Self.reply(to: .metered, .variant("u", .uint(1)), from: ":1.3")])
        #expect(state.metered == .read(true, from: "D-Bus NetworkManager Metered=yes"))
        #expect(state.apply([Self.owner(BusProperty.metered.service, "")]).changed)
        #expect(
            state.metered.reason
                == "NetworkManager not on the D-Bus system bus (org.freedesktop.NetworkManager left the bus)"
        )
        let back = state.apply([Self.owner(BusProperty.metered.service, ":1.8")])
        #expect(back.refetch == [.metered])
        #expect(state.owners[BusProperty.metered.service] == ":1.8")
    }

    @Test("NetworkManager's Metered: yes and guess-yes are metered, no and guess-no are not, unknown is unread")
    func metered() {
        for (code, expected) in [(1, true), (2, false), (3, true), (4, false)] as [(UInt64, Bool)] {
            var state = Self.asked()
            _ = state.apply([Self.reply(to: .metered, .variant("u", .uint(code)), from: ":1.3")])
            #expect(state.metered.value == expected, "\(code)")
        }
        var unknown = Self.asked()
        _ = unknown.apply([Self.reply(to: .metered, .variant("u", .uint(0)), from: ":1.3")])
        #expect(unknown.metered.reason == "NetworkManager Metered=unknown")
    }

    @Test("seat0's active session leads to its LockedHint; unlocked since boot once it read false, and it stays")
    func lockState() {
        var state = Self.asked()
        let session = "/org/freedesktop/login1/session/c2"
        let active = state.apply([
            Self.reply(
                to: .activeSession,
                .variant("(so)", .structure([.string("c2"), .string(session)])),
                from: ":1.2"
            )
        ])
        #expect(active.refetch == [.locked(session)])
        #expect(state.unlockedSinceBoot.reason == "logind not on the D-Bus system bus (no answer)")
        state.pending[99] = .locked(session)
        var locked = DBusMessage(kind: .methodReturn)
        locked.replySerial = 99
        locked.sender = ":1.2"
        locked.signature = "v"
        locked.body = [.variant("b", .bool(true))]
        _ = state.apply([locked])
        #expect(state.unlockedSinceBoot.value == false, "locked since boot")
        _ = state.apply([Self.changed(.locked(session), .variant("b", .bool(false)), from: ":1.2")])
        #expect(state.unlockedSinceBoot.value == true)
        _ = state.apply([Self.changed(.locked(session), .variant("b", .bool(true)), from: ":1.2")])
        #expect(state.unlockedSinceBoot.value == true, "locked again, but unlocked since boot")

        var server = Self.asked()
        _ = server.apply([
            Self.reply(to: .activeSession, .variant("(so)", .structure([.string(""), .string("/")])), from: ":1.2")
        ])
        #expect(server.unlockedSinceBoot.reason == "no active session on seat0 in logind")
    }

    @Test("idle: input devices where read, else logind's IdleHint, else both reasons")
    func idleness() {
        let input = Probed<Bool>.read(false, from: "input: a key 3 s ago")
        let bus = Probed<Bool>.read(true, from: "D-Bus logind IdleHint=true")
        #expect(DeviceSources.idleness(input: input, bus: bus) == input)
        #expect(DeviceSources.idleness(input: .unavailable(reason: "no /dev/input"), bus: bus) == bus)
        #expect(
            DeviceSources.idleness(input: .unavailable(reason: "no /dev/input"), bus: .unavailable(reason: "no bus"))
                == .unavailable(reason: "no /dev/input; no bus")
        )
    }
}
