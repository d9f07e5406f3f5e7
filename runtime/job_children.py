"""A heavy job's child process: started by one launcher thread, its address space bounded, tied to the life of the
server, killed with whatever it started, its failure read from the end of its stderr.

- a child dies with the server, however the server ends (a kill -9, the out-of-memory killer): the kernel kills
  it when the thread that started it ends (Linux's PR_SET_PDEATHSIG), and every child is started by one thread
  that lives as long as the process;
- its address space is limited to its memory bound (RLIMIT_AS, set in the child before it runs the command)."""
import concurrent.futures
import os
import queue
import signal
import subprocess
import sys
import threading

# Runs first in the child: ask the kernel to kill it when its parent (the launcher thread) ends, leave at once if
# the server is already gone, limit the address space (0: no limit), then become the command (both survive exec).
# A launcher rather than Popen(preexec_fn=...), which may deadlock in a process with threads (a server's).
_LAUNCH = ("import ctypes, os, resource, signal, sys\n"
           "try:\n"
           "    ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"          # PR_SET_PDEATHSIG (Linux)
           "except (OSError, AttributeError):\n"
           "    pass\n"
           "if os.getppid() != int(sys.argv[1]):\n"
           "    sys.exit(70)\n"
           "n = int(sys.argv[2])\n"
           "if n:\n"
           "    resource.setrlimit(resource.RLIMIT_AS, (n, n))\n"
           "os.execv(sys.argv[3], sys.argv[3:])\n")


class _Launcher:
    """The one thread that starts every child (PR_SET_PDEATHSIG ties a child to the thread that started it, and
    the threads that ask, script runs and job followers, end long before the process)."""

    def __init__(self):
        self._asks: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def popen(self, cmd: list[str], **kwargs) -> subprocess.Popen:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="jobs-launcher", daemon=True)
                self._thread.start()
        done: concurrent.futures.Future = concurrent.futures.Future()
        self._asks.put((cmd, kwargs, done))
        return done.result()

    def _run(self):
        while True:
            cmd, kwargs, done = self._asks.get()
            try:
                done.set_result(subprocess.Popen(cmd, **kwargs))
            except BaseException as e:      # noqa: BLE001 - handed to the thread that asked
                done.set_exception(e)


_launcher = _Launcher()


def start(cmd: list[str], memory_mb: int | None, cwd) -> subprocess.Popen:
    """Start `cmd` (argv; cmd[0] an executable path) as a child of the launcher thread in a session of its own,
    its address space bounded to memory_mb MiB (None: unlimited); stdout and stderr are text pipes. Raises
    OSError when it cannot start."""
    limit = memory_mb << 20 if memory_mb is not None else 0
    argv = [sys.executable, "-c", _LAUNCH, str(os.getpid()), str(limit), *cmd]
    return _launcher.popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           text=True, start_new_session=True)


def kill_group(proc: subprocess.Popen):
    try:
        os.killpg(proc.pid, signal.SIGKILL)            # the child and whatever it started (compile workers)
    except (ProcessLookupError, PermissionError):
        pass


def out_of_memory(message: str) -> bool:
    """Whether an error message (a child's stderr, an exception's text) says an allocation failed."""
    return any(s in message for s in ("MemoryError", "can't allocate memory", "Cannot allocate memory",
                                      "std::bad_alloc", "out of memory", "failed to map segment"))


def last_line(text: str) -> str:
    """The last non-blank line of `text`, its last 300 characters ("" when there is none)."""
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][-300:] if lines else ""
