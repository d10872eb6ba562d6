"""The file side of `rea setup` / `rea uninstall`: find the configs, read them for editing, apply.

Applying one change: lock the file's directory (flock, so concurrent runs take turns), re-read
the file and stop if it changed since the plan, copy it to a timestamped backup beside it, write
the new bytes to a staging file in the same directory, fsync, and rename over the original with
SIGINT/SIGTERM held back, so an interrupted run leaves each file either old or new.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from effects.fs import fsync_dir
from effects.registrations import ClientFile, client_files, project_files, read_bounded
from rea.registrations import MAX_CONFIG_BYTES
from rea.setup.plan import Change, Target

HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def platform_default(files: list[ClientFile], client: str) -> ClientFile:
    """Where a client's config goes when none exists yet: this platform's location."""
    own = [f for f in files if f.client == client]
    index = {"darwin": 0, "win32": -1}.get(sys.platform, 1)  # Library, XDG (.config), APPDATA
    return own[index] if client == "claude_desktop" else own[0]


def selected_files(
    env: Mapping[str, str], clients: list[str], all_detected: bool, project: Path | None = None
) -> list[ClientFile]:
    """The present files of the named clients (a named absent client gets its default location).

    With a project, only that project's files: `--project` registers REA for one repository."""
    files = client_files(env) if project is None else project_files(project)
    present = [f for f in files if _present(f)]
    if all_detected or not clients:
        chosen = present
    else:
        chosen = []
        for client in dict.fromkeys(clients):
            own = [f for f in present if f.client == client]
            chosen += own or [platform_default(files, client)]
    return sorted(chosen, key=lambda f: (f.client, str(f.path)))


def read_target(file: ClientFile) -> Target:
    """The file's bytes, and why REA must not replace it when it should not."""
    path = file.path
    base = {"client": file.client, "path": str(path), "format": file.format}
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return Target(**base, content=None, problem=_dir_problem(path.parent))
    except OSError as exc:
        return Target(**base, content=None, problem=f"cannot inspect: {exc.strerror}")
    if stat.S_ISLNK(info.st_mode):
        return Target(
            **base, content=b"", problem=f"a symlink to {os.readlink(path)}; not replaced (edit the target by hand)"
        )
    if not stat.S_ISREG(info.st_mode):
        return Target(**base, content=b"", problem="not a regular file")
    if info.st_size > MAX_CONFIG_BYTES:
        return Target(**base, content=b"", problem=f"larger than {MAX_CONFIG_BYTES} bytes; not read")
    content = read_bounded(path)
    if isinstance(content, str) or content is None:
        return Target(**base, content=b"", problem=content or "vanished while reading")
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):  # no write bit counts even for root
        return Target(**base, content=content, problem="read-only (no write permission); not replaced")
    return Target(**base, content=content, problem=_dir_problem(path.parent))


def _dir_problem(directory: Path) -> str | None:
    existing = next((p for p in (directory, *directory.parents) if p.exists()), None)
    if existing is None or not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing or directory} is not writable; cannot stage a new file beside the config"
    return None


def _present(file: ClientFile) -> bool:
    try:
        return file.home_dir.is_dir() or file.path.exists() or file.path.is_symlink()
    except OSError:
        return False


def apply(change: Change, *, backup: bool, stamp: str) -> str | None:
    """Write one planned change; the backup path (or None), or raise ChangedSincePlan/OSError."""
    path = Path(change.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.parent):
        current = read_bounded(path)
        if current != change.original:
            raise ChangedSincePlan(f"{path} changed since the plan was made; run the command again")
        saved = _backup(path, current, stamp) if backup and isinstance(current, bytes) else None
        if change.content is None:
            with _signals_held():
                path.unlink()
            return saved
        mode = stat.S_IMODE(os.stat(path).st_mode) if isinstance(current, bytes) else 0o600
        _replace(path, change.content, mode)
        return saved


class ChangedSincePlan(Exception):
    pass


def utc_stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    import fcntl  # POSIX only; imported here so the rest of the CLI still loads elsewhere

    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _backup(path: Path, content: bytes, stamp: str) -> str:
    for n in range(100):
        candidate = path.with_name(f"{path.name}.rea-backup-{stamp}{f'-{n}' if n else ''}")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        return str(candidate)
    raise FileExistsError(f"no free backup name beside {path}")


def _replace(path: Path, content: bytes, mode: int) -> None:
    staging = path.with_name(f".{path.name}.rea-staging-{os.getpid()}")
    with _signals_held():
        try:
            fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with os.fdopen(fd, "wb") as out:
                out.write(content)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(staging, mode)
            os.replace(staging, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staging)
        fsync_dir(str(path.parent))
