// libFuzzer target: the daemon's frame decoder and the wire value reader behind it, the code that
// reads every byte a client sends. Built with `swiftc -sanitize=fuzzer,address` from the two
// source files it needs (scripts/fuzz-frame-decoder.sh); the corpus is in ./corpus.
//
// The first input byte chooses how the rest is cut into reads (1 to 16 bytes each), as a stream
// socket delivers bytes in pieces of any size. Properties checked beyond "no crash, no leak":
// no frame is larger than the limit, and the decoder never holds more than one header, one
// frame's limit and one read.

let limit = 4096
let wireLimits = WireLimits(maximumMessageBytes: limit, maximumDepth: 32, maximumCount: 1000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let chunk = Int(first % 16) + 1
    var decoder = FrameDecoder(maximumFrameBytes: limit)
    var index = 1
    while index < bytes.count {
        decoder.append(bytes[index..<min(index + chunk, bytes.count)])
        index += chunk
        do {
            while let frame = try decoder.nextFrame() {
                precondition(frame.count <= limit, "a frame larger than the limit")
                // A payload is 4 bytes of magic and version, then one wire value.
                if frame.count >= 4 { _ = try? WireValue.read(Array(frame[4...]), limits: wireLimits) }
            }
        } catch {
            return 0  // the connection is closed: nothing more is read from it
        }
        precondition(decoder.bufferedByteCount < Frame.headerSize + limit + chunk, "the decoder holds too much")
    }
    return 0
}
