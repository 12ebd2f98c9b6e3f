"""Ctrl-C stops every command within 2 seconds: exit status 130 and one line, ``cubenoc: interrupted``
(docs/cli.md "Exit status").

Python turns SIGINT into :class:`KeyboardInterrupt` in the main thread only, and only between bytecodes:
a command waiting for a thread pool whose workers wait for SymbiYosys or yosys (``prove``, ``synth-report``),
or one inside a long compiled loop, would go on for as long as those take. :func:`guard` (cubenoc/cli.py
``main``) therefore also watches for the signal from a thread, through Python's wakeup file descriptor
(written by the C-level handler at once, whatever the main thread is doing): it kills every process this
one started (their children too), and if the command has not ended :data:`GRACE` seconds later, it prints
the line and ends the process. The normal path still runs first, so ``finally`` blocks and
:class:`~cubenoc.outputs.atomic_write` remove their temporary files.
"""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from .outputs import LIVE

#: seconds the command gets to end by itself after Ctrl-C before the process is ended
GRACE = 0.8
#: the line a stopped command prints
MESSAGE = "cubenoc: interrupted"
EXIT = 130

_said = {"done": False}


def say_interrupted() -> None:
    """Print :data:`MESSAGE` on stderr, once per command."""
    if _said["done"]:
        return
    _said["done"] = True
    try:
        print(MESSAGE, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        os.write(2, (MESSAGE + "\n").encode())


def descendants(pid: int | None = None) -> list[int]:
    """The processes below ``pid`` (default: this one), children first, from /proc (Linux) or ``ps``."""
    pid = os.getpid() if pid is None else pid
    parent: dict[int, int] = {}
    try:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2:].split()     # after "(comm)": state, ppid, ...
            parent[int(entry)] = int(fields[1])
    except FileNotFoundError:                                 # no /proc (macOS)
        out = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
        for line in out.splitlines():
            a, b = line.split()
            parent[int(a)] = int(b)
    children: dict[int, list[int]] = {}
    for p, pp in parent.items():
        children.setdefault(pp, []).append(p)
    out, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def kill_descendants(tools_only: bool = False) -> int:
    """SIGKILL every process below this one (``tools_only``: the tools started with :data:`TOOL`); the
    number killed. A tool, in its own process group, is killed by group, so a child it forks while the list
    is read goes with it."""
    n, own = 0, os.getpgid(0)
    for p in descendants():
        with contextlib.suppress(OSError):
            group = os.getpgid(p)
            if group == p and group != own:
                os.killpg(group, signal.SIGKILL)
            elif tools_only:
                continue
            else:
                os.kill(p, signal.SIGKILL)
            n += 1
    return n


#: keyword arguments for :mod:`subprocess` calls that start a tool (yosys, SymbiYosys, nextpnr): its own
#: process group, so Ctrl-C's kill takes the tool and everything it started at once
TOOL = {"start_new_session": True}


def _watch(sock: socket.socket) -> None:
    while True:
        try:
            data = sock.recv(64)
        except OSError:
            return
        if not data:                                          # guard() ended: the socket is closed
            return
        if signal.SIGINT in data:
            break
    end = time.monotonic() + GRACE
    while time.monotonic() < end:                             # tools the command starts meanwhile go too
        kill_descendants()
        time.sleep(0.05)
    kill_descendants()
    for path in list(LIVE):
        with contextlib.suppress(OSError):
            path.unlink()
    if not _said["done"]:
        _said["done"] = True
        os.write(2, (MESSAGE + "\n").encode())        # (not print: the main thread may hold stderr's lock)
    os._exit(EXIT)


@contextlib.contextmanager
def guard():
    """Around a command (cubenoc/cli.py ``main``): Ctrl-C kills the tools it runs at once and ends it within
    :data:`GRACE` seconds. Only in the main thread (a signal's wakeup descriptor is per process)."""
    _said["done"] = False
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        old = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:
        reader.close()
        writer.close()
        yield
        return
    watcher = threading.Thread(target=_watch, args=(reader,), name="cubenoc-interrupt", daemon=True)
    watcher.start()
    try:
        yield
    except KeyboardInterrupt:
        kill_descendants(tools_only=True)                     # the normal path ended first: its tools go too
        raise
    finally:
        signal.set_wakeup_fd(old)
        writer.close()
        with contextlib.suppress(OSError):
            reader.shutdown(socket.SHUT_RDWR)
        watcher.join(0.1)
        reader.close()
