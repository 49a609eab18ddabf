import Foundation

/// Long randomised runs (issue 29): `make test` runs a short version with a fixed seed, so a failure repeats
/// and the suite keeps its time; `make soak` (PASSBOX_SOAK=1) runs the long version with a new seed each time.
/// Every run prints its seed.
public enum Soak {
    public static var isOn: Bool { ProcessInfo.processInfo.environment["PASSBOX_SOAK"] == "1" }

    /// `short` in `make test`, `long` under `make soak`.
    public static func count(_ short: Int, soak long: Int) -> Int { isOn ? long : short }

    /// The seed of the run `name`: the environment's `variable` when set (to repeat a run), a new random one
    /// under soak, else `fixed`. Printed with how to repeat it.
    public static func seed(_ name: String, fixed: UInt64, variable: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment[variable].flatMap(UInt64.init) ?? (isOn ? UInt64.random(in: 1...UInt64.max) : fixed)
        print("\(name): seed \(seed) (\(variable)=\(seed) repeats it)")
        return seed
    }
}
