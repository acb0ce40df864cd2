import BackgroundProtocol
import BackgroundTestSupport
import Testing

@Suite("Frame decoder")
struct FrameDecoderTests {
    @Test("frames split at every byte boundary come out whole and in order")
    func everySplit() throws {
        let payloads: [[UInt8]] = [[], [1], Array(0..<200), [7, 7, 7]]
        let stream = try payloads.flatMap { try Frame.encode($0) }
        for split in 0...stream.count {
            var decoder = FrameDecoder(maximumFrameBytes: 1000)
            var out: [[UInt8]] = []
            decoder.append(stream[..<split])
            while let frame = try decoder.nextFrame() { out.append(frame) }
            decoder.append(stream[split...])
            while let frame = try decoder.nextFrame() { out.append(frame) }
            #expect(out == payloads, "split at \(split)")
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    @Test("a header announcing more than the limit fails before any payload arrives")
    func oversized() {
        var decoder = FrameDecoder(maximumFrameBytes: 16)
        decoder.append([0, 0, 0, 17])
        #expect(throws: FrameError.tooLarge(length: 17, limit: 16)) { try decoder.nextFrame() }
        var huge = FrameDecoder()
        huge.append([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: FrameError.self) { try huge.nextFrame() }
    }

    @Test("the encoder refuses what the decoder would")
    func encoderLimit() {
        #expect(throws: FrameError.tooLarge(length: 5, limit: 4)) { try Frame.encode([1, 2, 3, 4, 5], limit: 4) }
    }

    @Test("seeded random byte streams never crash the decoder and never buffer past the limit")
    func randomStreams() throws {
        let seed: UInt64 = 0x5EED_F4A3
        print("FrameDecoderTests.randomStreams seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<500 {
            var decoder = FrameDecoder(maximumFrameBytes: 64)
            let count = Int(generator.next() % 300)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            decoder.append(bytes)
            do {
                while let frame = try decoder.nextFrame() { #expect(frame.count <= 64) }
            } catch {
                #expect(error == .tooLarge(length: error.length, limit: 64))
            }
        }
    }
}

extension FrameError {
    var length: Int {
        switch self {
        case .tooLarge(let length, _): return length
        }
    }
}
