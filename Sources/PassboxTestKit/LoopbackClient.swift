import Foundation
import Glibc

// A plain TCP client for tests of the HTTP servers: raw connections, as a browser or an attacker opens them.

/// A TCP connection to 127.0.0.1:`port` whose reads give up after `seconds`; nil when it cannot connect.
public func connectLoopback(port: UInt16, seconds: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}

/// Everything the server sends until it closes (or the read times out), as text.
public func readToEnd(_ fd: Int32) -> String { readUntilClosed(fd).text }

/// Everything the server sends until it closes or the read times out, and which of the two ended it.
public func readUntilClosed(_ fd: Int32) -> (text: String, closed: Bool) {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n > 0 {
            received += buffer[0..<n]
            continue
        }
        return (String(decoding: received, as: UTF8.self), n == 0 || errno == ECONNRESET)
    }
}

/// Sends all of `bytes`; false when the connection is gone.
public func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return false }
        sent += n
    }
    return true
}

/// Sends `request` on a connection that stays open and reads one answer: whether it was 200.
public func answeredOK(_ fd: Int32, _ request: [UInt8]) -> Bool {
    sendAll(fd, request) && readAnswer(fd)?.hasPrefix("HTTP/1.1 200") == true
}

/// One answer read from a connection that stays open (its headers and a body of its Content-Length), or nil
/// when the connection closes or the read times out first.
public func readAnswer(_ fd: Int32) -> String? {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let text = String(decoding: received, as: UTF8.self)
        if let end = text.range(of: "\r\n\r\n") {
            let head = text[..<end.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - text[..<end.upperBound].utf8.count >= length { return text }
        }
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { return nil }
        received += buffer[0..<n]
    }
}

/// Whether the server has closed the connection by now (its end already readable), without waiting.
public func closedByServerNow(_ fd: Int32) -> Bool {
    var byte: UInt8 = 0
    let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
    return n == 0 || (n < 0 && errno == ECONNRESET)
}

/// Whether the server has closed the connection: the read sees its end within `seconds` (false when the
/// connection is still open then, or sends something instead).
public func closedByServer(_ fd: Int32, within seconds: Int) -> Bool {
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var byte: UInt8 = 0
    let n = recv(fd, &byte, 1, 0)
    return n == 0 || (n < 0 && errno == ECONNRESET)
}
