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
            switch request {
            case .webOpen:
                // A page must not mint sessions for other pages.
                reply = .failure(ProtocolError(.badRequest, ["reason": "web-open is answered on the agent's socket only"]))
            case .backupMake(let r) where r.path != nil:
                // The page saves a backup through the browser (Save and Print only); it names no file of the agent's.
                reply = .failure(ProtocolError(.badRequest, ["reason": "the web UI's backups come back as downloads, not paths"]))
            case .backupRestore(let r) where r.path != nil:
                reply = .failure(ProtocolError(.badRequest, ["reason": "the web UI restores what it uploads, not paths"]))
            case .importItems(let r) where r.path != nil || r.keyFilePath != nil:
                reply = .failure(ProtocolError(.badRequest, ["reason": "the web UI imports what it uploads, not paths"]))
            case .attach(let r) where r.path != nil:
                reply = .failure(ProtocolError(.badRequest, ["reason": "the web UI attaches what it uploads, not paths"]))
            case .saveAttachment(let r) where r.path != nil:
                reply = .failure(ProtocolError(.badRequest, ["reason": "the web UI downloads attachments, it names no file of the agent's"]))
            case .exportItems(let r) where r.path != nil:
                // The page's exports come back as downloads; it names no file of the agent's.
                reply = .failure(ProtocolError(.badRequest, ["reason": "the web UI's exports come back as downloads, not paths"]))
            case .copy(var r):
                // The agent's own display, and the clipboard time as the settings say now.
                r.display = display
                r.clearAfter = Settings.load(dataDirectory).effectiveClipboardSeconds
                reply = queue.sync { handle(.copy(r)) }
            default:
                reply = answerOffQueue(request) ?? queue.sync { handle(request) }
            }
        }
        return (try? Array(ProtocolCoding.wireEncode(ReplyFrame(reply))))
            ?? Array(#"{"version":\#(ProtocolVersion.current),"reply":{"kind":"failure","body":{"code":"internalError","facts":{}}}}"#.utf8)
    }
}
