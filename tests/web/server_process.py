"""A real `paiju serve` in a subprocess (the installed command), for the shutdown and flood tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def wait_until(condition: Any, seconds: float) -> bool:
    """Poll ``condition`` every 0.1 s until it holds (True) or ``seconds`` pass (False)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``paiju serve --data DATA --port PORT ...`` started and stopped by the test."""

    def __init__(self, data: Path, *options: str, log: Path | None = None) -> None:
        self.data = data
        self.options = options
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log if log is not None else data.parent / f"serve-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 90.0) -> ServerProcess:
        command = Path(sys.executable).parent / "paiju"
        argv = [str(command), "serve", "--port", str(self.port), "--data", str(self.data), *self.options]
        self._out = self.log.open("wb")
        self.proc = subprocess.Popen(argv, stdout=self._out, stderr=subprocess.STDOUT, env={**os.environ})
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"paiju serve exited with {self.proc.returncode}: {self.output()}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.kill()
        raise RuntimeError(f"paiju serve did not answer within {timeout_s} s: {self.output()}")

    def health(self) -> dict[str, Any]:
        return dict(httpx.get(f"{self.url}/api/health", timeout=30).json())

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 30.0) -> float:
        """Send ``sig`` and wait for the exit; returns the seconds it took."""
        assert self.proc is not None
        start = time.monotonic()
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        finally:
            self._out.close()
        return time.monotonic() - start

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()
