import Foundation
import PassboxCrypto
import PassboxProtocol
import PassboxStore
import PassboxWeb

extension AgentDaemon {
    /// Starts the web UI's server on 127.0.0.1 at a random port, at the first `web-open` (an agent that never
    /// serves the UI opens no TCP port and reads none of its files). Its API takes the same request frames as
    /// the socket and answers them on the same queue, one at a time, as the socket's are.
    func startWeb(queue: DispatchQueue) {
        // The display the agent was started in: the clipboard the web UI copies to.
        let display = ClipboardDisplay.fromEnvironment()
        do {
            web = try WebServer(directory: AgentPaths.socketDirectory(dataDirectory: dataDirectory)) { [weak self] body in
                guard let self else { return [] }
                return self.answerWeb(body, display: display, queue: queue)
            }
        } catch {
            webFailure = "\(error)"
        }
    }

    /// One API call: a request frame in, a reply frame's JSON out (its bytes wiped by the server once sent).
    func answerWeb(_ body: [UInt8], display: ClipboardDisplay, queue: DispatchQueue) -> [UInt8] {
        var reply: Reply
        switch Framing.decodeRequest(body) {
        case .failure(let error):
            reply = .failure(error)
        case .success(let request):
            if let hello = request.body(Operations.hello) {
                reply = .hello(OperationRegistry.current.hello(hello, surface: .web))
            } else if OperationRegistry.current.spec(request.operation)?.surfaces.contains(.web) != true {
                // A page must not mint sessions for other pages: what it may call is an allow-list.
                reply = .failure(ProtocolError(.badRequest, ["reason": "\(request.operation.rawValue) is answered on the agent's socket only"]))
            } else if let why = request.body.webRefusal {
                // The page names no file of the agent's: it uploads, and its answers come back as downloads.
                reply = .failure(ProtocolError(.badRequest, ["reason": why]))
            } else if var r = request.body(Operations.copy) {
                // The agent's own display, and the clipboard time as the settings say now.
                r.display = display
                r.clearAfter = Settings.load(dataDirectory).effectiveClipboardSeconds
                reply = queue.sync { handle(.copy(r)) }
            } else {
                reply = answerOffQueue(request) ?? queue.sync { handle(request) }
            }
        }
        return (try? Array(ProtocolCoding.wireEncode(ReplyFrame(reply))))
            ?? Array(#"{"version":\#(ProtocolVersion.current),"reply":{"kind":"failure","body":{"code":"internalError","facts":{}}}}"#.utf8)
    }
}
