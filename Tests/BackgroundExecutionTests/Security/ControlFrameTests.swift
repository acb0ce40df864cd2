import BackgroundExecution
import Foundation
import Testing

@Suite("Security: control frames are bounded before they are read")
struct ControlFrameTests {
    @Test("A frame round-trips, and a header announcing more than the limit is refused before any payload")
    func bounds() throws {
        let payload = Array(#"{"action":"status"}"#.utf8)
        let frame = ControlFrame.encode(payload)
        #expect(frame.count == payload.count + 4)
        #expect(try ControlFrame.payloadLength(header: frame.prefix(4), limit: 4096) == payload.count)
        #expect(throws: ControlFrameError.self) {
            try ControlFrame.payloadLength(header: [0xFF, 0xFF, 0xFF, 0xFF], limit: 4096)
        }
        #expect(throws: ControlFrameError.self) {
            try ControlFrame.payloadLength(header: [0, 0, 0x10, 0x01], limit: 4096)
        }
        #expect(throws: ControlFrameError.self) { try ControlFrame.payloadLength(header: [0, 0], limit: 4096) }
    }

    @Test("Requests are validated: size, identifier length, required identifiers")
    func requestsAreValidated() throws {
        #expect(throws: DebugCommandError.self) { try DebugCommand.decode(Data(repeating: 0x20, count: 5000)) }
        #expect(throws: DebugCommandError.self) { try DebugCommand.decode(Data(#"{"action":"simulateLaunch"}"#.utf8)) }
        #expect(throws: DebugCommandError.self) { try DebugCommand.decode(Data(#"{"action":"rm"}"#.utf8)) }
        let long = String(repeating: "a", count: 257)
        #expect(throws: DebugCommandError.self) {
            try DebugCommand.decode(Data(#"{"action":"why","identifier":"\#(long)"}"#.utf8))
        }
        #expect(try DebugCommand.decode(Data(#"{"action":"status"}"#.utf8)) == DebugCommand(action: .status))
    }
}
