// Writes the seed corpus of the transfer-responses fuzz target (FuzzTransferResponses.swift): a
// few downloads in the input's own encoding (FuzzInput's choices), among them the attack of issue
// 25's finding 1 and redirects towards the local network. Compiled with the same sources by
// scripts/fuzz-transfer-responses.sh --corpus.

import Foundation

/// Builds an input as FuzzTransferResponses reads it.
struct Seed {
    var bytes: [UInt8] = []

    mutating func text(_ value: String) { bytes += [UInt8(value.utf8.count)] + Array(value.utf8) }
    mutating func index(_ value: String, in table: [String]) { bytes.append(UInt8(table.firstIndex(of: value)!)) }

    /// A stored checkpoint: the URL, bytes held, expected length, validators.
    mutating func checkpoint(url: String, held: UInt8 = 0, expected: UInt8? = nil, tag: String? = nil) {
        index(url, in: urls)
        bytes.append(held)
        if let expected { bytes += [1, expected] } else { bytes.append(0) }
        if let tag {
            bytes.append(1)
            index(tag, in: tags)
        } else {
            bytes.append(0)
        }
        bytes += [0, 0]  // no Last-Modified, no stored representation
    }

    /// A response: status, fields (name, then a value given as text), body chunk sizes.
    mutating func response(_ status: Int, _ fields: [(String, String)], chunks: [UInt8] = []) {
        bytes += [0, UInt8(statuses.firstIndex(of: status)!), UInt8(fields.count)]
        for (name, value) in fields {
            index(name, in: fieldNames)
            bytes.append(0)  // a text value
            text(value)
        }
        bytes.append(UInt8(chunks.count))
        for chunk in chunks { bytes += [1, chunk] }
    }
}

@main
enum MakeCorpus {
    static func main() throws {
        let directory = CommandLine.arguments[1]
        var seeds: [Seed] = []

        // Finding 1: a 200 with an ETag and 1,000 bytes announced, 10 sent; then a 206 to the end of Int64.
        var overflow = Seed()
        overflow.bytes.append(0)  // no DNS
        overflow.checkpoint(url: "http://127.0.0.1:8080/a")
        overflow.response(200, [("Content-Length", "1000"), ("ETag", "\"v1\"")], chunks: [10])
        overflow.response(206, [("Content-Range", "bytes 10-9223372036854775807/*")], chunks: [5])
        seeds.append(overflow)

        // A restored checkpoint resumed with a 206 that finishes it, and one that continues.
        var resumed = Seed()
        resumed.bytes.append(0)
        resumed.checkpoint(url: "https://a.test/x", held: 7, expected: 9, tag: "\"v1\"")  // 4096 held of 16384
        resumed.response(
            206,
            [("Content-Range", "bytes 4096-8191/16384"), ("Content-Length", "4096"), ("ETag", "\"v1\"")],
            chunks: [255, 255]
        )
        resumed.response(206, [("Content-Range", "bytes 4606-16383/16384")], chunks: [200])
        seeds.append(resumed)

        // A redirect from a public name to the cloud's metadata address, and to loopback.
        for target in ["http://169.254.169.254/latest", "http://127.0.0.1:8080/a", "http://a.test/x"] {
            var redirect = Seed()
            redirect.bytes += [1, 0, 1, UInt8(addresses.firstIndex(of: "8.8.8.8")!)]  // a.test is 8.8.8.8
            redirect.checkpoint(url: "https://a.test/x")
            redirect.response(302, [("Location", target)])
            redirect.response(200, [("Content-Length", "3")], chunks: [3])
            seeds.append(redirect)
        }

        // A name that resolves to the local network redirecting to a relative path and to a name.
        var local = Seed()
        local.bytes += [2, 1, 1, UInt8(addresses.firstIndex(of: "10.0.0.1")!), 2, 2, 0, 2]
        local.checkpoint(url: "http://b.test:81/y")
        local.response(301, [("Location", "/relative")])
        local.response(307, [("Location", "https://rebind.test/i")])
        local.response(416, [])
        seeds.append(local)

        // A server that says too much: two lengths, a weak tag, an error body.
        var noisy = Seed()
        noisy.bytes.append(0)
        noisy.checkpoint(url: "http://8.8.8.8/e", held: 1, tag: "W/\"v1\"")
        noisy.response(
            206,
            [("Content-Length", "5"), ("content-length", "6"), ("Content-Range", "bytes 1-5/6")],
            chunks: [5]
        )
        noisy.response(500, [("ETag", "W/\"v1\"")], chunks: [1])
        noisy.response(404, [("Content-Length", "1")], chunks: [1, 1])
        seeds.append(noisy)

        for (number, seed) in seeds.enumerated() {
            FileManager.default.createFile(atPath: "\(directory)/seed-\(number)", contents: Data(seed.bytes))
        }
    }
}
