"""Programs and the effects they ask for.

A tool is a generator that yields effect descriptions, receives each effect's
`Result`, and returns an `Outcome`. The interpreter in `effects/` performs the
effects; tests can drive the same generator with scripted results.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any, NoReturn, TypeVar

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.results import either
from rea.session import Session, record


@attrs.frozen(kw_only=True)
class ReportProgress:
    """A status observation; the interpreter rate-limits and numbers it."""

    phase: str
    message: str


@attrs.frozen(kw_only=True)
class IdentifyTarget:
    """Hash a file (streaming) or a directory tree (entries, never following links)."""

    path: str


@attrs.frozen(kw_only=True)
class StampTarget:
    """The target's file-system stamp, taken by stat alone (nothing is read): whether it may have changed."""

    path: str


@attrs.frozen(kw_only=True)
class ReadJsonFile:
    path: str
    max_bytes: int


@attrs.frozen(kw_only=True)
class PublishAtomically:
    """Stream chunks to a staging file beside `path`, fsync, rename over it."""

    path: str
    chunks: Callable[[], Iterable[bytes]]
    overwrite: bool
    phase: str = "publishing"


@attrs.frozen(kw_only=True)
class ResolveCommandPath:
    """A command or path as the OS would run it: PATH lookup, then symlinks resolved."""

    path: str


@attrs.frozen(kw_only=True)
class NewRunId:
    """A fresh analysis run id (randomness lives in effects)."""


Effect = (
    ReportProgress | IdentifyTarget | StampTarget | ReadJsonFile | PublishAtomically | ResolveCommandPath | NewRunId
)


@attrs.frozen(kw_only=True)
class TargetFacts:
    path: str
    kind: str
    sha256: str
    size: int
    format: str
    architecture: str | None = None  # what the executable header declares, when it is one
    stamp: str | None = None  # the file-system stamp the bytes were hashed under (None: it moved meanwhile)
    managed: bool = False  # a PE whose CLI header is present (a .NET assembly)


@attrs.frozen(kw_only=True)
class TargetStamp:
    """What StampTarget saw. A stamp commits to identity (device, inode), size, mtime and ctime, of a file or
    of every entry of a tree. ctime cannot be set back by a writer, so new bytes always move the stamp; an
    unchanged stamp means unchanged bytes, a moved one only that they may have changed (then hash again)."""

    own: str | None  # None: the target could not be stat'ed
    companion: str | None = None  # the `.unpacked` directory beside the target (ASAR), when there is one


@attrs.frozen(kw_only=True)
class PublishReceipt:
    path: str
    bytes: int
    sha256: str


@attrs.frozen(kw_only=True)
class ServerFacts:
    """What the transport knows about itself, passed in as values."""

    package: str
    version: str
    sdk_version: str
    server_path: str
    started_at: str
    negotiated_protocol_version: str | None = None
    client: Mapping[str, Any] | None = None
    client_features: frozenset[str] = frozenset()
    transport: str = "mcp"
    root_path: str = ""  # the directory the running package was loaded from
    build_commit: str | None = None  # that checkout's git commit, when it is one


@attrs.frozen(kw_only=True)
class Context:
    server: ServerFacts
    max_response_bytes: int
    input_schema_profile: str = "full"
    analysis_provider: str | None = None  # REA_ANALYSIS_PROVIDER, read at startup
    toolsets: tuple[str, ...] = ("all",)  # REA_MCP_TOOLSETS or `rea mcp --toolsets` (rea.catalog.toolsets)
    angr_startup_timeout_ms: int = 120_000
    native_memory_limit_mib: int | None = None  # REA_NATIVE_MEMORY_LIMIT_MIB (None: no ceiling)
    cache_dir: str = ""
    max_import_bytes: int = 512 * 1024 * 1024


class ProgramCancelled(Exception):
    """Thrown into a program at the yield where its caller was cancelled.

    A program may catch it to return an Outcome that retains what it completed (partial
    Evidence, referenced by the cancelled error's partial_observation); it must not yield
    again. The call is still cancelled: the transport keeps the session of that Outcome.
    `partial` is what the effect running at the cancel had observed before it stopped (its facts, as
    it would have answered them, when the effect keeps any; else None): one long effect, such as a
    process observed under a debugger, hands its partial facts to the program this way.
    """

    def __init__(self, phase: str, partial: Any = None) -> None:
        super().__init__(phase)
        self.partial = partial


@attrs.frozen(kw_only=True)
class Outcome:
    """The session after the call (unchanged unless the program changed it) and the reply."""

    session: Session
    reply: Result[Any, ReaError]


def crashed(phase: str, exc: Exception) -> ReaError:
    """A program that raised: the error its caller answers with (the server's and the library's one wording)."""
    return ReaError(
        code="execution_failure",
        message=f"REA failed while {phase}: {type(exc).__name__}: {exc}. The session is unchanged.",
        details={"phase": phase, "exception": type(exc).__name__},
    )


def failed(session: Session, error: ReaError) -> Outcome:
    """A refused or failed call: the session as it was, the error as the reply."""
    return Outcome(session=session, reply=Failure(error))


def recorded(session: Session, built: Result[Evidence, ReaError]) -> Outcome:
    """A call that made one Evidence record: retain it and answer with it (or fail as built)."""
    return either(
        built,
        lambda evidence: Outcome(session=record(session, [evidence]), reply=Success(evidence.to_json())),
        lambda error: failed(session, error),
    )


Program = Generator[Effect, Any, Outcome]


# ---------------------------------------------------------------- the one error style of programs
#
# A program reads an effect's answer with `value = yield from need(effect)` and a pure `Result` with
# `value = must(result)`: each gives the value, or ends the program (decorated with `@refusable`) with the
# error and the session as it was. Pure functions below programs return `Result[T, ReaError]`; effect
# handlers answer `Result`. So a program reads straight down, with no `if not is_successful(...)` after
# every step, and a failure cannot be forgotten. scripts/error_styles.py counts the styles this replaces.

T = TypeVar("T")
Asked = TypeVar("Asked")
ProgramFn = TypeVar("ProgramFn", bound=Callable[..., Any])


class Refused(Exception):
    """The error a program ends with, on its way from `need`/`must` to the `@refusable` around it."""

    def __init__(self, error: ReaError) -> None:
        super().__init__(error.message)
        self.error = error


def refuse(error: ReaError) -> NoReturn:
    """End the program with this error (from a helper the program calls; the program itself may return
    `failed(session, error)`)."""
    raise Refused(error)


def must(result: Result[T, ReaError]) -> T:
    """The value of a pure step, or end the program with its error."""
    return result.alt(refuse).unwrap()  # `alt` hands the error to `refuse`, which never returns


def need(effect: Asked) -> Generator[Asked, Any, Any]:
    """Ask for an effect: its answer, or end the program with the effect's error."""
    return must((yield effect))


def typed(program: ProgramFn) -> ProgramFn:
    """A program that reads its tool's argument record (the catalog row's `args_type`, every default
    filled) instead of the JSON mapping: the gate (rea.workflows.gated) structures the arguments once,
    so the program reads `args.path` as a typed field and mypy checks every read. Evidence parameters
    stay the JSON form (`to_wire(args)`), byte for byte what the mapping was."""
    program.reads_record = True  # type: ignore[attr-defined]
    return program


def reads_record(program: Callable[..., Any]) -> bool:
    """Whether the program was declared @typed (functools.wraps carries the mark through decorators)."""
    return bool(getattr(program, "reads_record", False))


def refusable(body: ProgramFn) -> ProgramFn:
    """A program (generator or plain function of the session first) whose `need`/`must` refusals end it
    as `failed(session, error)`: the session it was called with, unchanged, and the error as its reply."""
    if inspect.isgeneratorfunction(body):

        @functools.wraps(body)
        def steps(session: Session, *rest: Any) -> Program:
            try:
                outcome: Outcome = yield from body(session, *rest)
            except Refused as refusal:
                return failed(session, refusal.error)
            return outcome

        return steps  # type: ignore[return-value]

    @functools.wraps(body)
    def call(session: Session, *rest: Any) -> Any:
        try:
            return body(session, *rest)
        except Refused as refusal:
            return failed(session, refusal.error)

    return call  # type: ignore[return-value]
