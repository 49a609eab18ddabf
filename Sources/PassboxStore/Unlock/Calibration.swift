import Foundation
import PassboxCrypto

/// Chooses Argon2id parameters for a new vault: the most memory × passes that fits in about one second on
/// this machine, with at least 256 MiB (where the machine has it) and at least 3 passes.
public enum Argon2Calibration {
    /// One measured lane count.
    public struct Probe: Sendable {
        public let lanes: UInt8
        public let seconds: Double
    }

    /// The result, with the measurements that led to it.
    public struct Result: Sendable {
        public let parameters: Argon2Parameters
        public let probes: [Probe]
        public let expectedSeconds: Double
    }

    public static func calibrate(targetSeconds: Double = 1.0) throws -> Result {
        let physicalMiB = Int(ProcessInfo.processInfo.physicalMemory >> 20)
        // Never ask for more than an eighth of the machine's memory.
        let ceilingMiB = max(64, physicalMiB / 8)
        let probeMiB = min(256, ceilingMiB)
        let salt = SecureRandom.bytes(count: 32)
        var probes = [Probe]()
        for lanes: UInt8 in [1, 2, 4] {
            let parameters = Argon2Parameters(memoryKiB: UInt32(probeMiB * 1024), passes: 1, lanes: lanes)
            let start = SystemClock().monotonic()
            _ = try Argon2.derive(password: Array("calibration".utf8), salt: salt, parameters: parameters)
            probes.append(Probe(lanes: lanes, seconds: SystemClock().monotonic() - start))
        }
        let best = probes.min { $0.seconds < $1.seconds }!
        let throughput = Double(probeMiB) / best.seconds  // MiB × passes per second
        let budget = throughput * targetSeconds
        var memoryMiB = probeMiB
        for candidate in [1024, 512, 256] where candidate <= ceilingMiB && budget / Double(candidate) >= 3 {
            memoryMiB = candidate
            break
        }
        let passes = UInt32(min(128, max(3, Int(budget / Double(memoryMiB)))))
        let parameters = Argon2Parameters(memoryKiB: UInt32(memoryMiB * 1024), passes: passes, lanes: best.lanes)
        return Result(parameters: parameters, probes: probes, expectedSeconds: Double(memoryMiB) * Double(passes) / throughput)
    }
}
