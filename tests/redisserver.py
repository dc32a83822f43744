"""A real redis-server for a test: Debian's package, on a free port of
127.0.0.1, persistence off unless asked, stopped by its PID."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


class RedisServer:
    def __init__(self, directory: Path, appendonly: bool = False):
        self.directory = directory
        self.appendonly = appendonly
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed (tests/setup.sh installs it)"
        self.directory.mkdir(parents=True, exist_ok=True)
        for _attempt in range(5):  # a free port can be taken before redis binds it
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
            cmd = [binary, "--port", str(self.port), "--bind", "127.0.0.1"]
            cmd += ["--dir", str(self.directory), "--save", ""]
            cmd += ["--appendonly", "yes" if self.appendonly else "no"]
            cmd += ["--appendfsync", "always"] if self.appendonly else []
            log = open(self.directory / "redis.log", "ab")  # noqa: SIM115 - the server's
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            log.close()
            if self._ready(timeout=10):
                return self
            self.stop()
        raise AssertionError("redis-server did not start: " + self.log()[-500:])

    def _ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                redis.Redis(port=self.port, socket_timeout=1).ping()
                return True
            except redis.ConnectionError:
                time.sleep(0.05)
        return False

    def log(self) -> str:
        path = self.directory / "redis.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, decode_responses=True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
