"""ctxlint: lint what LLM agents send to their models.

The functions here run the same Rust code as the ``ctxlint`` command and give
exactly its findings (the command's ``--output-format json`` document, SPEC §4,
as typed objects):

    >>> import ctxlint
    >>> report = ctxlint.check(["session.jsonl"])            # doctest: +SKIP
    >>> [(f.rule, f.line, f.pointer) for f in report.findings]  # doctest: +SKIP
    [('duplicate-system-event', 3, '/content')]

Errors (a missing file named, a bad option, an invalid ``ctxlint.toml``) raise
:class:`CtxlintError` (:class:`UsageError` for bad arguments) with the command's
message, where the command exits 2; an input that could not be checked raises
too, the report of the others in the exception's ``report``. When nothing of a
known format was checked (every file matched no format: ``check(["notes.json"])``,
``check_requests([{"foo": 1}])``) :class:`InputError` is raised, as the command
exits 2, so that a test asserting "no findings" cannot pass on nothing checked.
Files that match no format beside ones that do are in :attr:`Report.skipped`
and do not raise.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._ctxlint import CtxlintError, UsageError, __version__
from . import _ctxlint

__all__ = [
    "check",
    "check_requests",
    "check_messages",
    "fence",
    "Report",
    "Finding",
    "Related",
    "FileSummary",
    "Skipped",
    "Failed",
    "FenceReport",
    "CtxlintError",
    "UsageError",
    "InputError",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]


class InputError(CtxlintError):
    """Nothing of a known input format was checked: every file given (or found
    in the folders given, or held in memory) matched no format. The command
    exits 2 with "no input of a known format"; the report, whose ``skipped``
    lists each file with the reason, is in ``.report``."""

    report: "Report"


@dataclass(frozen=True)
class Related:
    """A location a finding points to besides its own (the first copy, the user turn…)."""

    path: str
    line: Optional[int]
    pointer: Optional[str]
    message: str

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Finding:
    """One finding, with every field of the JSON report (SPEC §4). Lines and
    columns are 1-based, ``byte_offset`` 0-based bytes, ``request`` the 0-based
    request or step index; a field that is not known is ``None``."""

    rule: str
    code: str
    severity: str
    message: str
    path: str
    format: Optional[str]
    line: Optional[int]
    column: Optional[int]
    byte_offset: Optional[int]
    end_line: Optional[int]
    end_column: Optional[int]
    pointer: Optional[str]
    request: Optional[int]
    entry_id: Optional[str]
    related: List[Related]
    fingerprint: Optional[str]
    excerpt: Optional[str]
    help: Optional[str]
    url: Optional[str]
    #: What the defect cost (SPEC §4 ``impact``): ``{"tokens", "estimated",
    #: "cached_before", "cached_after", "confirmed", "cost_usd"}``, or ``None``.
    impact: Optional[Dict[str, Any]] = None
    raw: Optional[Dict[str, Any]] = field(default=None, repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Finding":
        g = d.get
        related = [Related(r.get("path"), r.get("line"), r.get("pointer"), r.get("message")) for r in g("related") or ()]
        return cls(g("rule"), g("code"), g("severity"), g("message"), g("path"), g("format"), g("line"), g("column"),
                   g("byte_offset"), g("end_line"), g("end_column"), g("pointer"), g("request"), g("entry_id"), related,
                   g("fingerprint"), g("excerpt"), g("help"), g("url"), g("impact"), d)

    def to_dict(self) -> Dict[str, Any]:
        """The finding as the JSON report gives it (its keys in the report's order)."""
        if self.raw is not None:
            return dict(self.raw)
        d = asdict(self)
        del d["raw"]
        return d

    def __str__(self) -> str:
        where = self.path + (f":{self.line}" if self.line else "") + (f":{self.column}" if self.column else "")
        at = f" at {self.pointer}" if self.pointer else ""
        return f"{where}: {self.code} {self.rule} [{self.severity}]: {self.message}{at}"


@dataclass(frozen=True)
class FileSummary:
    """One checked input: its path, format, and counts."""

    path: str
    format: str
    requests: int
    entries: int
    skipped_exchanges: int
    #: The provider's recorded usage summed over the input's calls (``calls``,
    #: token counts, ``cost_usd``, ``unexplained_cache_breaks``…), or ``None``.
    usage: Optional[Dict[str, Any]] = None
    #: What the input's findings cost (``tokens``, ``cost_usd``…), or ``None``.
    impact: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.raw)


@dataclass(frozen=True)
class Skipped:
    """A file that matches no input format, with the reason."""

    path: str
    reason: str

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Failed:
    """An input that could not be checked at all, with the error."""

    path: str
    error: str

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Report:
    """What ``ctxlint check`` reports: findings, the inputs checked, skipped and failed."""

    findings: List[Finding]
    files: List[FileSummary]
    skipped: List[Skipped]
    failed: List[Failed]
    summary: Dict[str, Any]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, text: str) -> "Report":
        d = json.loads(text)
        files = [
            FileSummary(f.get("path"), f.get("format"), f.get("requests", 0), f.get("entries", 0), f.get("skipped_exchanges", 0),
                        f.get("usage"), f.get("impact"), f)
            for f in d.get("files", [])
        ]
        return cls(
            findings=[Finding.from_dict(f) for f in d.get("findings", [])],
            files=files,
            skipped=[Skipped(s.get("path"), s.get("reason")) for s in d.get("skipped", [])],
            failed=[Failed(f.get("path"), f.get("error")) for f in d.get("failed", [])],
            summary=d.get("summary", {}),
            raw=d,
        )

    def to_dict(self) -> Dict[str, Any]:
        """The report as ``ctxlint check --output-format json`` prints it."""
        return self.raw

    def by_rule(self) -> Dict[str, int]:
        """Findings per rule name."""
        out: Dict[str, int] = {}
        for f in self.findings:
            out[f.rule] = out.get(f.rule, 0) + 1
        return out

    def failing(self, fail_on: str = "warning") -> List[Finding]:
        """The findings at or above ``fail_on`` ("warning" or "error")."""
        if fail_on not in ("warning", "error"):
            raise UsageError(f"fail_on: `{fail_on}` is not `warning` or `error`")
        return [f for f in self.findings if fail_on == "warning" or f.severity == "error"]

    def __bool__(self) -> bool:
        return bool(self.findings)


@dataclass(frozen=True)
class FenceReport:
    """What ``ctxlint fence OLD NEW`` reports: the verdict, the appended lines, findings."""

    verdict: str
    format: Optional[str]
    appended: List[Dict[str, Any]]
    findings: List[Finding]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def clean(self) -> bool:
        """Whether NEW is OLD, or OLD plus lines the runner itself writes."""
        return self.verdict in ("identical", "append-owned")

    def to_dict(self) -> Dict[str, Any]:
        return self.raw


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [os.fspath(p) for p in paths]


def _opt_list(v: Optional[Union[str, Sequence[str]]]) -> Optional[List[str]]:
    if v is None:
        return None
    return [v] if isinstance(v, str) else list(v)


def check(
    paths: Union[PathLike, Iterable[PathLike]],
    *,
    config: Optional[PathLike] = None,
    isolated: bool = False,
    select: Optional[Union[str, Sequence[str]]] = None,
    ignore: Optional[Union[str, Sequence[str]]] = None,
    input_format: Optional[str] = None,
    fail_on: Optional[str] = None,
) -> Report:
    """``ctxlint check PATHS``: files or folders (walked as the command walks them).

    ``config`` names a ``ctxlint.toml`` (else each input's is discovered;
    ``isolated=True`` uses none); ``select``/``ignore`` take rule names, codes,
    code prefixes (``"CTX1"``) or ``"ALL"``; ``input_format`` forces a format id.
    Raises :class:`CtxlintError` where the command exits 2 before checking.
    """
    text = _ctxlint.check_json(
        _paths(paths),
        os.fspath(config) if config is not None else None,
        isolated,
        _opt_list(select),
        _opt_list(ignore),
        input_format,
        fail_on,
    )
    return _raise_failed(Report.from_json(text), _paths(paths))


def _raise_failed(report: Report, names: Sequence[str] = ()) -> Report:
    # The command exits 2 when an input could not be checked at all (a file
    # named that is missing or unreadable): here that is an exception, which
    # carries the report of everything else as ``.report``.
    if report.failed:
        e = CtxlintError("; ".join(f"{f.path}: {f.error}" if f.path and f.path not in f.error else f.error for f in report.failed))
        e.report = report  # type: ignore[attr-defined]
        raise e
    # As the command: exit 2 when files were given but none is of a known format.
    if not report.files and report.skipped:
        shown = ", ".join(names) if names else ", ".join(s.path for s in report.skipped)
        reasons = "; ".join(f"{s.path}: {s.reason}" for s in report.skipped[:5])
        more = f"; and {len(report.skipped) - 5} more" if len(report.skipped) > 5 else ""
        e = InputError(f"no input of a known format in {shown} ({reasons}{more})")
        e.report = report
        raise e
    return report


def _as_bytes(x: Union[str, bytes, Mapping[str, Any], Sequence[Any]]) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    return json.dumps(x, ensure_ascii=False).encode("utf-8")


def check_requests(
    bodies: Iterable[Union[str, bytes, Mapping[str, Any]]],
    *,
    format: Optional[str] = None,
    name: str = "requests",
    select: Optional[Union[str, Sequence[str]]] = None,
    ignore: Optional[Union[str, Sequence[str]]] = None,
    config: Optional[PathLike] = None,
) -> Report:
    """Checks request bodies held in memory (dicts, JSON strings or bytes), one
    stream in the given order, as ``ctxlint check`` checks a folder of body files:
    ``history-rewrite``, ``dropped-system-prompt`` and the rest compare each request
    with the one before. Findings name ``{name}[i]`` (0-based). ``format`` forces
    a body format id (``"openai-chat"``, ``"anthropic-messages"``…); by default it
    is detected from each body. Raises :class:`InputError` when no body is of a
    known request format (an empty list checks nothing and raises nothing)."""
    files = [(f"{name}[{i}]", _as_bytes(b)) for i, b in enumerate(bodies)]
    text = _ctxlint.check_memory_json(
        files, name, os.fspath(config) if config is not None else None, config is None, _opt_list(select), _opt_list(ignore), format, None
    )
    return _raise_failed(Report.from_json(text), [n for n, _ in files])


def check_messages(
    messages: Union[str, bytes, Sequence[Any]],
    *,
    format: str = "pydantic-ai-history",
    name: str = "messages",
    select: Optional[Union[str, Sequence[str]]] = None,
    ignore: Optional[Union[str, Sequence[str]]] = None,
    config: Optional[PathLike] = None,
) -> Report:
    """Checks one message history held in memory: by default a pydantic-ai
    history (``ModelMessagesTypeAdapter.dump_python(messages, mode="json")``, or
    its JSON), or any other transcript format named by ``format`` (as JSON text,
    bytes, or a list of records, written one per line for JSONL formats)."""
    if isinstance(messages, (str, bytes)):
        data = _as_bytes(messages)
    elif format == "pydantic-ai-history":
        data = _as_bytes(list(messages))
    else:
        data = b"".join(_as_bytes(m) + b"\n" for m in messages)
    text = _ctxlint.check_memory_json(
        [(name, data)], name, os.fspath(config) if config is not None else None, config is None, _opt_list(select), _opt_list(ignore), format, None
    )
    return _raise_failed(Report.from_json(text))


def fence(old: PathLike, new: PathLike, *, owned: Optional[Sequence[str]] = None) -> FenceReport:
    """``ctxlint fence OLD NEW``: is NEW an append-only, runner-owned extension of OLD?"""
    d = json.loads(_ctxlint.fence_json(os.fspath(old), os.fspath(new), list(owned) if owned is not None else None))
    return FenceReport(
        verdict=d.get("verdict"),
        format=d.get("format"),
        appended=d.get("appended") or [],
        findings=[Finding.from_dict(f) for f in d.get("findings") or []],
        raw=d,
    )
