/// What the desktop's services said over D-Bus, and the rules that turn replies and signals into
/// values: pure (no socket), so every rule is tested with messages built in the test.
///
/// Trust: a signal counts only from the service's current owner (its unique name, learned from
/// the replies to `Get`, which the bus routes from the owner, and from `NameOwnerChanged`, which
/// only the bus sends); a signal another client addresses to the daemon directly is ignored.
struct DesktopBusState: Sendable {
    /// The last value of each property, as sent (a variant).
    var values: [BusProperty: DBusValue] = [:]
    /// Why a property has no value (the error a `Get` got, "left the bus").
    var missing: [BusProperty: String] = [:]
    /// `Get`s sent and not answered, by serial.
    var pending: [UInt32: BusProperty] = [:]
    /// The unique name owning each service.
    var owners: [String: String] = [:]
    /// seat0's active session's object path, once known.
    var session: String?
    /// Whether any `LockedHint` of the active session read `false` since the daemon started.
    var everUnlocked = false
    /// Why the bus is not usable (no bus, the connection ended); every value is unavailable then.
    var problem: String?

    /// The properties watched now: the fixed ones and the active session's `LockedHint`.
    var known: [BusProperty] {
        BusProperty.watched + (session.map { [BusProperty.locked($0)] } ?? [])
    }

    /// Applies replies and signals. Returns whether a value changed and the properties to `Get`
    /// again (a service that came back, a new active session, an invalidated property).
    mutating func apply(_ messages: [DBusMessage]) -> (changed: Bool, refetch: [BusProperty]) {
        var changed = false
        var refetch: [BusProperty] = []
        for message in messages {
            switch message.kind {
            case .methodReturn, .error:
                guard let serial = message.replySerial, let property = pending.removeValue(forKey: serial) else {
                    continue
                }
                changed = answer(message, for: property, refetch: &refetch) || changed
            case .signal where message.member == "NameOwnerChanged":
                changed = ownerChanged(message, refetch: &refetch) || changed
            case .signal where message.member == "PropertiesChanged":
                changed = propertiesChanged(message, refetch: &refetch) || changed
            default:
                continue
            }
        }
        return (changed, refetch)
    }

    private mutating func answer(
        _ message: DBusMessage,
        for property: BusProperty,
        refetch: inout [BusProperty]
    ) -> Bool {
        guard message.kind == .methodReturn, let value = message.body.first else {
            values[property] = nil
            missing[property] = message.errorName ?? "no value"
            return true
        }
        if let sender = message.sender { owners[property.service] = sender }
        return set(property, value, refetch: &refetch)
    }

    /// Records a value; a new active session means reading its `LockedHint`.
    private mutating func set(_ property: BusProperty, _ value: DBusValue, refetch: inout [BusProperty]) -> Bool {
        values[property] = value
        missing[property] = nil
        if property == .activeSession {
            let path = Self.sessionPath(value)
            if path != session {
                session.map { values[.locked($0)] = nil }
                session = path
                if let path { refetch.append(.locked(path)) }
            }
        }
        if property == .locked(session ?? ""), value.boolean == false { everUnlocked = true }
        return true
    }

    private mutating func ownerChanged(_ message: DBusMessage, refetch: inout [BusProperty]) -> Bool {
        guard message.sender == DBusMessage.bus.name, message.body.count == 3, let name = message.body[0].text,
            let owner = message.body[2].text
        else { return false }
        let properties = known.filter { $0.service == name }
        guard !properties.isEmpty else { return false }
        if owner.isEmpty {
            owners[name] = nil
            for property in properties {
                values[property] = nil
                missing[property] = "\(name) left the bus"
            }
            return true
        }
        owners[name] = owner
        refetch += properties
        return false
    }

    private mutating func propertiesChanged(_ message: DBusMessage, refetch: inout [BusProperty]) -> Bool {
        guard message.body.count >= 2, let interface = message.body[0].text,
            case .dictionary(let changes) = message.body[1]
        else { return false }
        var changed = false
        for property in known where property.path == message.path && property.interface == interface {
            guard let sender = message.sender, owners[property.service] == sender else { continue }
            if let value = changes[.string(property.name)] {
                changed = set(property, value, refetch: &refetch) || changed
            } else if message.body.count == 3, case .array(let invalidated) = message.body[2],
                invalidated.contains(.string(property.name))
            {
                refetch.append(property)
            }
        }
        return changed
    }

    /// The object path in seat0's `ActiveSession` (`(so)`); nil when the id is empty (no session).
    static func sessionPath(_ value: DBusValue) -> String? {
        guard let fields = value.fields, fields.count == 2, let id = fields[0].text, !id.isEmpty else { return nil }
        return fields[1].text
    }

    private func reason(_ property: BusProperty, _ what: String) -> String {
        if let problem { return problem }
        return "\(what) not on the D-Bus system bus (\(missing[property] ?? "no answer"))"
    }

    /// Low Power Mode: power-profiles-daemon's `ActiveProfile` is `power-saver`.
    var lowPowerMode: Probed<Bool> {
        for property in BusProperty.powerProfiles {
            if let profile = values[property]?.text {
                return .read(profile == "power-saver", from: "D-Bus power-profiles-daemon ActiveProfile=\(profile)")
            }
        }
        return .unavailable(reason: reason(BusProperty.powerProfiles[0], "power-profiles-daemon"))
    }

    /// Whether the user is away: logind's `IdleHint`.
    var idleHint: Probed<Bool> {
        guard let idle = values[.idleHint]?.boolean else { return .unavailable(reason: reason(.idleHint, "logind")) }
        return .read(idle, from: "D-Bus logind IdleHint=\(idle)")
    }

    /// Unlocked since boot: the active session's `LockedHint` has read false since the daemon
    /// started.
    var unlockedSinceBoot: Probed<Bool> {
        guard let session else {
            if problem == nil, values[.activeSession] != nil {
                return .unavailable(reason: "no active session on seat0 in logind")
            }
            return .unavailable(reason: reason(.activeSession, "logind"))
        }
        guard let locked = values[.locked(session)]?.boolean else {
            return .unavailable(reason: reason(.locked(session), "logind"))
        }
        return .read(everUnlocked, from: "D-Bus logind LockedHint=\(locked) of \(session)")
    }

    /// Whether the network is metered: NetworkManager's `Metered` (yes or guessed yes).
    var metered: Probed<Bool> {
        guard let code = values[.metered]?.unsigned else {
            return .unavailable(reason: reason(.metered, "NetworkManager"))
        }
        let names: [UInt64: String] = [1: "yes", 2: "no", 3: "guess-yes", 4: "guess-no"]
        guard let name = names[code] else { return .unavailable(reason: "NetworkManager Metered=unknown") }
        return .read(code == 1 || code == 3, from: "D-Bus NetworkManager Metered=\(name)")
    }
}
