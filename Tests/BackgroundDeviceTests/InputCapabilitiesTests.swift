import Testing

@testable import BackgroundDevice

@Suite("Input devices: a person's keyboard or pointer, from sysfs capabilities")
struct InputCapabilitiesTests {
    /// Capability files as a laptop's kernel writes them (`ev`, `key`, `rel`, `abs`).
    static let devices: [(name: String, files: [String], kind: InputCapabilities.Kind)] = [
        (
            "AT Translated Set 2 keyboard",
            ["120013", "402000000 3803078f800d001 feffffdfffefffff fffffffffffffffe", "0", "0"], .keyboard
        ),
        ("USB mouse", ["17", "1f0000 0 0 0 0", "903", "0"], .pointer),
        ("touchpad", ["b", "e520 10000 0 0 0 0", "0", "660800011000003"], .pointer),
        ("touchscreen", ["b", "400 0 0 0 0 0", "0", "3"], .pointer),
        ("virtual machine's tablet mouse", ["1f", "70000 0 0 0 0", "800", "3"], .pointer),
        ("lid switch", ["21", "0", "0", "0"], .other),
        ("power button", ["3", "10000000000000 0", "0", "0"], .other),
        ("accelerometer", ["9", "0", "0", "7"], .other),
        ("joystick", ["1b", "ffff00000000 0 0 0 0", "0", "30027"], .other),
        ("a relative axis pair without a button (a dial)", ["5", "0", "3", "0"], .other),
    ]

    @Test("Keyboards and pointers count; switches, sensors, buttons and joysticks do not", arguments: 0..<10)
    func kinds(index: Int) throws {
        let device = Self.devices[index]
        let files = device.files
        let capabilities = try #require(InputCapabilities(ev: files[0], key: files[1], rel: files[2], abs: files[3]))
        #expect(capabilities.kind == device.kind, "\(device.name)")
    }

    @Test("Bitmaps: most significant word first, bit 0 of the last word is code 0; garbage is nil")
    func bitmaps() {
        #expect(InputCapabilities.bitmap("1 0\n") == [0, 1])
        #expect(InputCapabilities.has([0, 1], 64))
        #expect(!InputCapabilities.has([0, 1], 0))
        #expect(!InputCapabilities.has([1], 200))
        #expect(InputCapabilities.bitmap("") == nil)
        #expect(InputCapabilities.bitmap("xyz") == nil)
        #expect(InputCapabilities.bitmap("11112222333344445") == nil)  // 17 digits: wider than a word
        #expect(InputCapabilities(ev: "3", key: "-1", rel: "0", abs: "0") == nil)
    }
}
