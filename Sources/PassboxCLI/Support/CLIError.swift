import PassboxCore
import PassboxStore

/// An error as the user sees it: what happened, what to do, and the exit code.
struct CLIError: Error {
    enum Code: Int32 {
        case failure = 1
        case usage = 2
        case authentication = 3
    }

    let message: String
    let hint: String?
    let code: Code

    static func usage(_ message: String, hint: String? = "run \"passbox help\" for the commands and options") -> CLIError {
        CLIError(message: message, hint: hint, code: .usage)
    }

    static func failure(_ message: String, hint: String? = nil) -> CLIError {
        CLIError(message: message, hint: hint, code: .failure)
    }

    /// Maps any error from the libraries to what the CLI prints.
    static func from(_ error: Error) -> CLIError {
        switch error {
        case let e as CLIError: return e
        default: return CLIError(message: "unexpected error: \(type(of: error))", hint: nil, code: .failure)
        }
    }
}
