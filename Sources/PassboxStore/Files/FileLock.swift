import Foundation
internal import CLinux

/// An advisory `flock` on a lock file beside the vault: two processes never write at once.
final class FileLock {
    private let fd: Int32

    /// Takes the lock, polling for up to `timeout` seconds; throws `busy` if another process keeps it.
    init(path: String, timeout: TimeInterval = 10) throws {
        fd = CLinux_openFile(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                close(fd)
                throw StoreError.busy
            }
            usleep(20_000)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
