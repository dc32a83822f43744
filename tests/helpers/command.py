"""Running the command as a user does: the ``linkaudit`` installed in the
test environment (``pip install -e .``), bounded in time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import run_process

LINKAUDIT = str(Path(sys.executable).with_name("linkaudit"))  # installed by pip -e .
HANG_BOUND = 30  # seconds: a run that hangs fails here, not at the suite's timeout


def run(tmp_path: Path, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    """``linkaudit ARGS`` in ``tmp_path``, checked for faults of ours."""
    return run_process([LINKAUDIT, *args], cwd=tmp_path, timeout=timeout)


def refused(out: subprocess.CompletedProcess, words: str) -> str:
    """The run stopped with exit code 2 and one error line holding ``words``."""
    assert out.returncode == 2, out.stdout + out.stderr
    errors = [line for line in out.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and errors[0].startswith("linkaudit: error: "), out.stderr
    assert words in errors[0], out.stderr
    assert "Traceback" not in out.stderr
    return errors[0]


def on_terminal(tmp_path: Path, *args: str, timeout: float = 60) -> tuple[int, str]:
    """``linkaudit ARGS`` with stdout and stderr on one pseudo-terminal, as
    in a shell: the exit code and everything the terminal was sent, in
    order (checked for faults of ours)."""
    code, sent, _ = _on_terminal(tmp_path, args, timeout, apart=False)
    return code, sent


def stdout_on_terminal(tmp_path: Path, *args: str, timeout: float = 60) -> tuple[int, str, str]:
    """``linkaudit ARGS`` with its stdout on a pseudo-terminal and its
    stderr apart: the exit code, what the terminal was sent, the stderr."""
    return _on_terminal(tmp_path, args, timeout, apart=True)


def _on_terminal(
    tmp_path: Path, args: tuple[str, ...], timeout: float, apart: bool
) -> tuple[int, str, str]:
    import os
    import pty
    import threading

    from tests.conftest import check_no_fault

    master, slave = pty.openpty()
    err = subprocess.PIPE if apart else slave
    proc = subprocess.Popen([LINKAUDIT, *args], cwd=tmp_path, stdout=slave, stderr=err)
    os.close(slave)
    chunks: list[bytes] = []

    def read() -> None:  # until the child closes the terminal
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the other end is closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout)
    finally:
        proc.kill()
        reader.join(timeout=10)
        os.close(master)
    sent = b"".join(chunks).decode()
    stderr = proc.stderr.read().decode() if proc.stderr is not None else ""
    check_no_fault(sent, stderr)
    return proc.returncode, sent, stderr
