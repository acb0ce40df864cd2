// The choices FuzzTransferResponses' inputs pick from (shared with MakeCorpus.swift): URLs, names
// of the fake DNS and their addresses, header field names, validators and statuses.

let policy = TransferPolicy()
let urls = [
    "http://127.0.0.1:8080/a", "https://a.test/x", "http://a.test/x", "http://b.test:81/y", "http://10.0.0.7/c",
    "http://198.51.100.7/d", "http://8.8.8.8/e", "http://[::1]:9/f", "http://[::ffff:127.0.0.1]/g",
    "http://localhost/h", "https://rebind.test/i", "http://169.254.169.254/latest", "http://0.0.0.0/j",
    "http://93.184.215.14/k", "/relative", "//b.test/z", "ftp://a.test/", "https://a.test:99999/",
]
let names = ["a.test", "b.test", "rebind.test", "c.test"]
let addresses = [
    "127.0.0.1", "10.0.0.1", "8.8.8.8", "::1", "::ffff:127.0.0.1", "169.254.169.254", "fe80::1", "192.0.2.1",
    "93.184.215.14", "0.0.0.0", "2001:db8::1", "2606:4700::1", "::", "203.0.113.9",
]
let fieldNames = [
    "Content-Length", "Content-Range", "ETag", "Last-Modified", "Location", "content-length", "CONTENT-RANGE",
    "etag", "Transfer-Encoding", "Content-Type", "X-A", "Date",
]
let tags = ["\"v1\"", "W/\"v1\"", "\"v2\"", "", "W/", "Tue, 15 Nov 1994 08:12:31 GMT"]
let statuses: [Int] = [200, 206, 416, 301, 302, 303, 307, 308, 304, 500, 503, 404, 204, 100, 0, 999, 201, 305]
let ownAddresses: Set<IPAddress> = [IPAddress(literal: "192.0.2.1")!, IPAddress(literal: "2001:db8::1")!]
