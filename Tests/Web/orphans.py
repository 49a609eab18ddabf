"""The browsers' orphaned processes, counted in the test's CPU time.

A browser's helpers (Chromium's renderers and zygote, Firefox's content processes) outlive the process that
started them when the driver ends the browser, and are then re-parented to init: their CPU time reached no
waiting parent, so scripts/test.sh's count of a lane's CPU seconds left out about half of what the browser
flows use (main_flows in Chromium: 61 CPU s counted, 147 used by the machine). This process becomes the
orphans' parent instead (a child subreaper, prctl(2)) and collects them once its own work is done, which adds
their time to what its parent counts.
"""
import ctypes, os, time

PR_SET_CHILD_SUBREAPER = 36


def adopt():
    """Makes this process the parent of its descendants' orphans (Linux only; elsewhere nothing changes)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def collect(timeout=5):
    """Collects every child, waiting up to TIMEOUT seconds for those still ending. Called only at the end:
    collecting while subprocess still waits for its own children would take their exit status from it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)
