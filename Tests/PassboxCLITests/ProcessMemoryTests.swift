import Foundation
import PassboxProcess
import Testing

/// The one reader of `/proc/PID/status` the benchmarks and the parse child share: a key's value in KiB, 0
/// when the key is absent; the same figure read by path and through a descriptor opened earlier.
struct ProcessMemoryTests {
    @Test func statusValuesAreReadInKiB() throws {
        let text = "Name:\tpassbox\nVmPeak:\t  400000 kB\nVmHWM:\t  276224 kB\nVmRSS:\t   51200 kB\n"
        #expect(ProcessMemory.kib("VmHWM", inStatus: text) == 276_224)
        #expect(ProcessMemory.kib("VmRSS", inStatus: text) == 51_200)
        #expect(ProcessMemory.kib("VmSwap", inStatus: text) == 0)
        #expect(ProcessMemory.kib("Vm", inStatus: text) == 0, "a key is matched whole, up to its colon")

        let own = ProcessMemory.kib("VmRSS")
        #expect(own > 0)
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        #expect(ProcessMemory.kib("VmHWM", statusDescriptor: fd) >= own)
        #expect(ProcessMemory.resetPeak())
        #expect(ProcessMemory.kib("VmHWM", statusDescriptor: fd) > 0, "read again from the start of the same descriptor")
    }
}
