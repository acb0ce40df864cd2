/// What an input device can report, from its sysfs capability bitmaps
/// (`/sys/class/input/eventN/device/capabilities/{ev,key,rel,abs}`), and whether that makes it a
/// person's keyboard or pointer.
///
/// Each file is a bitmap written as hexadecimal words of the kernel's `long`, the most
/// significant word first, separated by spaces (`fffffffffffffffe` for keys 1…63). Words are
/// read as 64 bits, a 64-bit kernel's `long`; a 32-bit kernel's 32-bit words are not handled. The rules
/// follow the kernel's event codes (`linux/input-event-codes.h`) the way udev's `input_id`
/// classifies devices:
///
/// - a keyboard reports `EV_KEY` with every key from `KEY_ESC` (1) to `KEY_S` (31), the low bits
///   of the first word but bit 0: Escape, the digits and the first letters (a power button or a
///   lone media-key device is not one);
/// - a pointer reports `EV_REL` with `REL_X` and `REL_Y` and a mouse button (`BTN_LEFT`), or
///   `EV_ABS` with `ABS_X` and `ABS_Y` and a touch, finger, pen or stylus tool or `BTN_LEFT` (a
///   touchpad, a touchscreen, a tablet, a virtual machine's absolute mouse);
/// - anything else is not a person: a lid or tablet-mode switch (`EV_SW`), an accelerometer
///   (`ABS_X`/`ABS_Y`/`ABS_Z` without a tool or button), power and sleep buttons, a joystick.
public struct InputCapabilities: Sendable, Hashable {
    /// `ev`: the event types.
    public var events: [UInt64]
    /// `key`: the keys and buttons.
    public var keys: [UInt64]
    /// `rel`: the relative axes.
    public var relative: [UInt64]
    /// `abs`: the absolute axes.
    public var absolute: [UInt64]

    /// What the device is, for idleness.
    public enum Kind: String, Sendable, Hashable {
        /// A keyboard: counts as a person.
        case keyboard
        /// A mouse, touchpad, touchscreen or tablet: counts as a person.
        case pointer
        /// A switch, sensor or button: not a person.
        case other
    }

    /// The bitmaps, each as words with bit 0 of word 0 the lowest code.
    public init(events: [UInt64], keys: [UInt64], relative: [UInt64], absolute: [UInt64]) {
        self.events = events
        self.keys = keys
        self.relative = relative
        self.absolute = absolute
    }

    /// Parses the four files' text; `nil` when one is not a bitmap.
    public init?(ev: String, key: String, rel: String, abs: String) {
        guard let events = Self.bitmap(ev), let keys = Self.bitmap(key), let relative = Self.bitmap(rel),
            let absolute = Self.bitmap(abs)
        else { return nil }
        self.init(events: events, keys: keys, relative: relative, absolute: absolute)
    }

    /// Words of at most 16 hexadecimal digits separated by spaces, most significant first;
    /// returned least significant first. `nil` for anything else.
    static func bitmap(_ text: String) -> [UInt64]? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard !words.isEmpty else { return nil }
        var result: [UInt64] = []
        for word in words.reversed() {
            guard word.utf8.count <= 16, let value = UInt64(word, radix: 16) else { return nil }
            result.append(value)
        }
        return result
    }

    /// Whether `bit` is set in `map`.
    static func has(_ map: [UInt64], _ bit: Int) -> Bool {
        let word = bit / 64
        return word < map.count && map[word] & (1 << UInt64(bit % 64)) != 0
    }

    // Codes from linux/input-event-codes.h.
    static let eventKey = 0x01
    static let eventRelative = 0x02
    static let eventAbsolute = 0x03
    static let axisX = 0x00
    static let axisY = 0x01
    static let buttonLeft = 0x110
    static let tools = [0x140, 0x145, 0x14a, 0x14b]  // BTN_TOOL_PEN, BTN_TOOL_FINGER, BTN_TOUCH, BTN_STYLUS

    /// Keyboard, pointer or neither.
    public var kind: Kind {
        let keyed = Self.has(events, Self.eventKey)
        if keyed, (1...31).allSatisfy({ Self.has(keys, $0) }) { return .keyboard }
        if Self.has(events, Self.eventRelative), Self.has(relative, Self.axisX), Self.has(relative, Self.axisY),
            keyed, Self.has(keys, Self.buttonLeft)
        {
            return .pointer
        }
        if Self.has(events, Self.eventAbsolute), Self.has(absolute, Self.axisX), Self.has(absolute, Self.axisY),
            keyed, (Self.tools + [Self.buttonLeft]).contains(where: { Self.has(keys, $0) })
        {
            return .pointer
        }
        return .other
    }
}
