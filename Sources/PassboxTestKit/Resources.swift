import Foundation

/// The helper scripts shipped with the test support (Scripts/).
public enum Resources {
    /// The path of `Scripts/NAME.py`.
    public static func script(_ name: String) -> URL? { Bundle.module.url(forResource: "Scripts/\(name)", withExtension: "py") }
}
