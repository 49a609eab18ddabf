import Foundation
import PassboxCrypto
import PassboxProtocol
import PassboxStore
import PassboxWeb

extension AgentDaemon {
    /// Starts the web UI's server on 127.0.0.1 at a random port. Its API takes the same request frames as the
    /// socket and answers them on the same queue, one at a time, as the socket's are.
    func startWeb(queue: DispatchQueue) {
        let display = Self.ownDisplay()
        do {
            web = try WebServer(directory: AgentPaths.socketDirectory(dataDirectory: dataDirectory)) { [weak self] body in
                guard let self else { return [] }
                return self.answerWeb(body, display: display, queue: queue)
            }
        } catch {
            webFailure = "\(error)"
        }
    }

    /// The display the agent was started in: the clipboard the web UI copies to (the browser asks the agent,
    /// which owns the clipboard helpers and clears them after the same 90 seconds).
    static func ownDisplay() -> ClipboardDisplay {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        return ClipboardDisplay(display: variable("DISPLAY"), waylandDisplay: variable("WAYLAND_DISPLAY"), xauthority: variable("XAUTHORITY"), runtimeDirectory: variable("XDG_RUNTIME_DIR"))
    }

    /// One API call: a request frame in, a reply frame's JSON out (its bytes wiped by the server once sent).
    func answerWeb(_ body: [UInt8], display: ClipboardDisplay, queue: DispatchQueue) -> [UInt8] {
        var reply: Reply
        switch Framing.decodeRequest(body) {
        case .failure(let error):
            reply = .failure(error)
        case .success(let request):
            switch request {
            case .webOpen:
                // A page must not mint sessions for other pages.
                reply = .failure(ProtocolError(.badRequest, ["reason": "web-open is answered on the agent's socket only"]))
            case .copy(var r):
                // The agent's own display, and the clipboard time as the settings say now.
                r.display = display
                r.clearAfter = Settings.load(dataDirectory).effectiveClipboardSeconds
                reply = queue.sync { handle(.copy(r)) }
            default:
                reply = queue.sync { handle(request) }
            }
        }
        return (try? Array(ProtocolCoding.wireEncode(ReplyFrame(reply)))) ?? Array(#"{"version":5,"reply":{"kind":"failure","body":{"code":"internal","facts":{}}}}"#.utf8)
    }
}
