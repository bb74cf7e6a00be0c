"""The ctxlint pytest plugin (entry point ``pytest11``; on when the package is installed,
active with ``--ctxlint``).

``pytest --ctxlint`` lints every VCR cassette a test used or recorded (vcrpy, and so
pytest-recording and pytest-vcr, which use it: each ``vcr.cassette.Cassette`` a test
opens is noted) and every file the test passed to the ``ctxlint`` fixture, and fails
that test when ctxlint finds something at or above ``--ctxlint-fail-on`` (``warning``
by default), with the findings as its failure. A cassette replayed exists during the
test and is judged with its call; one recorded is written when the cassette closes —
for pytest-recording, at the test's teardown — and is judged then (an error at
teardown of that test).

Markers:

* ``@pytest.mark.ctxlint_expect("history-rewrite", …)``: the test is about that
  defect (as pydantic-ai's ``moves_cache_prefix``): its findings do not fail the
  test, and the test fails if ctxlint does *not* find it;
* ``@pytest.mark.ctxlint_skip("duplicate-context-block", …)``: those rules are not
  run for this test (``@pytest.mark.ctxlint_skip`` alone: the test is not linted).

Rules are named by name, code or code prefix, as ``--select`` takes them.
"""
from __future__ import annotations

import os
from typing import List, Optional, Set

import pytest

import ctxlint

_current: Optional["_Used"] = None


class _Used:
    """The files one test used: cassettes noted from vcrpy, files given to the fixture."""

    def __init__(self) -> None:
        self.paths: List[str] = []
        self.judged: Set[str] = set()

    def note(self, path: object) -> None:
        try:
            p = os.path.abspath(os.fspath(path))  # type: ignore[arg-type]
        except TypeError:
            return
        if p not in self.paths:
            self.paths.append(p)


def _note(path: object) -> None:
    if _current is not None:
        _current.note(path)


def _patch_vcr() -> bool:
    """Notes the path of every vcrpy cassette opened (vcrpy's ``Cassette(path, …)``)."""
    try:
        from vcr.cassette import Cassette
    except ImportError:
        return False
    if getattr(Cassette, "_ctxlint_patched", False):
        return True
    init = Cassette.__init__

    def __init__(self, path, *args, **kwargs):  # noqa: N807
        init(self, path, *args, **kwargs)
        _note(path)

    Cassette.__init__ = __init__
    Cassette._ctxlint_patched = True
    return True


class CtxlintFixture:
    """The ``ctxlint`` fixture: ``ctxlint(path, …)`` lints the files now (returning
    the :class:`ctxlint.Report`) and has the plugin judge them after the test as it
    judges cassettes (with ``--ctxlint``)."""

    def __init__(self, used: Optional[_Used]) -> None:
        self._used = used

    def __call__(self, *paths: "os.PathLike[str] | str", **kwargs) -> ctxlint.Report:
        if self._used is not None:
            for p in paths:
                self._used.note(p)
        return ctxlint.check(list(paths), **kwargs)

    check = __call__


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("ctxlint", "lint the model requests the tests recorded (ctxlint)")
    g.addoption("--ctxlint", action="store_true", default=False,
                help="lint every VCR cassette a test used or recorded, and the files given to the `ctxlint` fixture")
    g.addoption("--ctxlint-fail-on", choices=["warning", "error"], default="warning",
                help="fail a test on findings at or above this severity (default: warning)")
    g.addoption("--ctxlint-select", action="append", default=[], metavar="RULE",
                help="run only these rules (names, codes, prefixes; repeatable)")
    g.addoption("--ctxlint-ignore", action="append", default=[], metavar="RULE",
                help="do not run these rules (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ctxlint_expect(*rules): the test's cassettes must show these ctxlint findings; they do not fail it")
    config.addinivalue_line("markers", "ctxlint_skip(*rules): do not run these ctxlint rules for the test (no rules: do not lint it)")
    if config.getoption("ctxlint"):
        _patch_vcr()


@pytest.fixture(name="ctxlint")
def ctxlint_fixture(request: pytest.FixtureRequest) -> CtxlintFixture:
    """Lints files now and, with ``--ctxlint``, judges them after the test."""
    return CtxlintFixture(_current)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    global _current
    _current = _Used() if item.config.getoption("ctxlint") else None
    item._ctxlint_used = _current  # type: ignore[attr-defined]
    try:
        yield
    finally:
        _current = None


def _rules(item: pytest.Item, name: str) -> Optional[List[str]]:
    marks = list(item.iter_markers(name))
    if not marks:
        return None
    return [str(r) for m in marks for r in m.args]


def _matches(rule: str, code: str, selectors: List[str]) -> bool:
    return any(s == rule or code.startswith(s.upper()) or s.upper() == "ALL" for s in selectors)


def _judge(item: pytest.Item, used: _Used) -> Optional[str]:
    """Lints the files of `used` not yet judged that exist; returns the failure text, if any."""
    fresh = [p for p in used.paths if p not in used.judged and os.path.isfile(p)]
    if not fresh:
        return None
    used.judged.update(fresh)
    skip = _rules(item, "ctxlint_skip")
    if skip is not None and not skip:
        return None
    expect = _rules(item, "ctxlint_expect") or []
    cfg = item.config
    ignore = list(cfg.getoption("ctxlint_ignore")) + (skip or [])
    try:
        report = ctxlint.check(fresh, select=cfg.getoption("ctxlint_select") or None, ignore=ignore or None)
    except ctxlint.InputError:
        # Files the test used that are of no format ctxlint reads (a cassette of
        # another API): nothing to lint, not the test's failure.
        return None
    except ctxlint.CtxlintError as e:
        return f"ctxlint could not check the test's files: {e}"
    fail_on = cfg.getoption("ctxlint_fail_on")
    failing = [f for f in report.failing(fail_on) if not _matches(f.rule, f.code, expect)]
    missing = [r for r in expect if not any(_matches(f.rule, f.code, [r]) for f in report.findings)]
    lines: List[str] = []
    if failing:
        lines.append(f"ctxlint found {len(failing)} defect(s) in the requests this test recorded:")
        lines.extend(f"  {_rel(f)}" for f in failing)
    if missing:
        lines.append(f"ctxlint_expect: ctxlint found no {', '.join(missing)} in {', '.join(_relpath(p) for p in fresh)}")
    return "\n".join(lines) or None


def _relpath(p: str) -> str:
    try:
        r = os.path.relpath(p)
    except ValueError:
        return p
    return p if r.startswith("..") else r


def _rel(f: ctxlint.Finding) -> str:
    return str(f).replace(f.path, _relpath(f.path), 1)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    used: Optional[_Used] = getattr(item, "_ctxlint_used", None)
    if used is None or call.when not in ("call", "teardown"):
        return
    rep = outcome.get_result()
    if call.when == "call" and rep.outcome == "skipped":
        return
    text = _judge(item, used)
    if text and rep.outcome != "failed":
        rep.outcome = "failed"
        rep.longrepr = text
    elif text:
        rep.sections.append(("ctxlint", text))
