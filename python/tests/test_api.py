"""The Python API gives exactly what the command prints (`--output-format json`)."""
import glob
import json
import os
import subprocess

import pytest

import ctxlint
from conftest import CASES, CORPUS, cli, need_corpus


def cases(command):
    out = []
    for exp in sorted(glob.glob(os.path.join(CASES, "*", "expected.json"))):
        d = json.load(open(exp))
        if d["command"][0] == command:
            out.append(pytest.param(os.path.dirname(exp), d, id=os.path.basename(os.path.dirname(exp))))
    return out


def run_cli(args, cwd):
    p = subprocess.run([*cli(), *args, "--output-format", "json"], cwd=cwd, capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout), p.returncode


def test_there_are_cases():
    assert len(cases("check")) >= 30 and len(cases("fence")) >= 10


@pytest.mark.parametrize("case,expected", cases("check"))
def test_check_gives_the_commands_report_on_every_case(case, expected, monkeypatch):
    doc, code = run_cli(expected["command"], case)
    monkeypatch.chdir(case)
    report = ctxlint.check(expected["command"][1:])
    assert report.to_dict() == doc
    assert [f.to_dict() for f in report.findings] == doc["findings"]
    # And the case's rules (run_cases.py checks their lines and pointers on the command).
    if expected.get("exact", True):
        assert sorted(f.rule for f in report.findings) == sorted(f["rule"] for f in expected["findings"])
    assert bool(report.findings) == (code == 1)


@pytest.mark.parametrize("case,expected", [c for c in cases("fence") if "--prefix-size" not in c.values[1]["command"]])
def test_fence_gives_the_commands_verdict(case, expected, monkeypatch):
    doc, _ = run_cli(expected["command"], case)
    monkeypatch.chdir(case)
    r = ctxlint.fence(*expected["command"][1:3])
    assert r.to_dict() == doc
    assert r.verdict == doc["verdict"]
    assert r.clean == (doc["verdict"] in ("identical", "append-owned"))


def test_findings_are_typed_with_every_field():
    r = ctxlint.check(os.path.join("fixtures", "report", "mixed-session.jsonl") if os.path.exists("fixtures") else os.path.join(CASES, "..", "report", "mixed-session.jsonl"))
    f = r.findings[0]
    assert (f.rule, f.code, f.severity, f.line, f.column, f.pointer, f.request, f.entry_id) == (
        "duplicate-system-event", "CTX101", "error", 3, 76, "/content", 0, "c1")
    assert f.related[0].line == 2 and f.related[0].pointer == "/message/content/0"
    assert set(f.to_dict()) == {"rule", "code", "severity", "message", "path", "format", "line", "column", "byte_offset",
                                "end_line", "end_column", "pointer", "request", "entry_id", "related", "fingerprint",
                                "impact", "excerpt", "help", "url"}
    # The duplicated event's impact: 56 bytes, 14 tokens added; no usage recorded, no price.
    assert f.impact == {"tokens": 14, "estimated": True, "cached_before": None, "cached_after": None,
                        "confirmed": None, "cost_usd": None}
    assert r.by_rule() == {"duplicate-system-event": 1, "duplicate-user-turn": 1, "orphan-tool-result": 1}
    assert [x.rule for x in r.failing("error")] == ["duplicate-system-event", "orphan-tool-result"]
    assert r.summary["findings"] == 3 and r.files[0].format == "pi-session"


def test_select_and_ignore_as_the_command_takes_them():
    path = os.path.join(CASES, "..", "report", "mixed-session.jsonl")
    assert [f.rule for f in ctxlint.check(path, select="CTX3").findings] == ["orphan-tool-result"]
    assert "duplicate-user-turn" not in ctxlint.check(path, ignore=["duplicate-user-turn"]).by_rule()


def test_errors_are_exceptions_with_the_commands_messages(tmp_path):
    with pytest.raises(ctxlint.UsageError, match="--select: unknown rule `nope`"):
        ctxlint.check(str(tmp_path), select=["nope"])
    missing = str(tmp_path / "missing.jsonl")
    with pytest.raises(ctxlint.CtxlintError, match="missing.jsonl") as e:
        ctxlint.check(missing)
    assert e.value.report.failed[0].path == missing
    bad = tmp_path / "ctxlint.toml"
    bad.write_text("select = [")
    with pytest.raises(ctxlint.CtxlintError):
        ctxlint.check(str(tmp_path), config=str(bad))
    with pytest.raises(ctxlint.UsageError, match="unknown input format"):
        ctxlint.check(str(tmp_path), input_format="nope")


def test_check_requests_is_the_folder_of_bodies_in_memory():
    case = os.path.join(CASES, "litellm-36559-system-hoist")
    bodies = [json.load(open(os.path.join(case, f"req{i}.json"))) for i in (1, 2, 3)]
    folder = ctxlint.check([os.path.join(case, f"req{i}.json") for i in (1, 2, 3)])
    mem = ctxlint.check_requests(bodies)
    key = lambda f: (f.rule, f.request, f.pointer, f.message)  # noqa: E731
    assert [key(f) for f in mem.findings] == [key(f) for f in folder.findings]
    assert [f.path for f in mem.findings] == ["requests[1]", "requests[2]"]
    # JSON strings and bytes are bodies too; the order given is the stream's.
    again = ctxlint.check_requests([json.dumps(b) for b in bodies[:1]] + [json.dumps(b).encode() for b in bodies[1:]])
    assert [key(f) for f in again.findings] == [key(f) for f in mem.findings]
    assert ctxlint.check_requests(bodies[:1]).findings == []


def test_check_messages_reads_a_pydantic_ai_history_held_in_memory():
    need_corpus()
    found = 0
    for path in sorted(glob.glob(os.path.join(CORPUS, "pydantic-ai-history", "*.json"))):
        on_disk = ctxlint.check(path, isolated=True)
        mem = ctxlint.check_messages(json.load(open(path)))
        assert [(f.rule, f.pointer) for f in mem.findings] == [(f.rule, f.pointer) for f in on_disk.findings], path
        assert mem.files[0].format == "pydantic-ai-history"
        found += 1
    assert found >= 5


def test_the_package_command_is_the_cli(tmp_path):
    path = os.path.join(CASES, "..", "report", "mixed-session.jsonl")
    import shutil
    import sys
    exe = shutil.which("ctxlint", path=os.path.dirname(sys.executable))
    assert exe, "pip install puts `ctxlint` beside the interpreter"
    p = subprocess.run([exe, "check", path, "--output-format", "concise"], capture_output=True, text=True)
    assert p.returncode == 1
    assert p.stdout.splitlines()[0].endswith(":3:76: CTX101 [error] system event rendered again in the same step (first at line 2)")
    v = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert v.stdout.strip() == f"ctxlint {ctxlint.__version__}"


def test_nothing_of_a_known_format_raises_input_error_as_the_command_exits_2(tmp_path):
    unknown = tmp_path / "unknown.json"
    unknown.write_text('{"foo": 1}\n')
    p = subprocess.run([*cli(), "check", str(unknown)], capture_output=True, text=True)
    assert p.returncode == 2 and "no input of a known format" in p.stderr
    with pytest.raises(ctxlint.InputError, match="no input of a known format in .*unknown.json") as e:
        ctxlint.check([str(unknown)])
    assert isinstance(e.value, ctxlint.CtxlintError)
    assert [s.path for s in e.value.report.skipped] == [str(unknown)] and e.value.report.findings == []
    # A folder holding only such files: the same.
    with pytest.raises(ctxlint.InputError):
        ctxlint.check(str(tmp_path))
    # Bodies in memory that match no request format.
    with pytest.raises(ctxlint.InputError, match=r"requests\[0\]"):
        ctxlint.check_requests([{"foo": 1}])
    # Beside a file that is checked, a file of no format is skipped, not raised (exit 0/1 too).
    session = os.path.join(CASES, "..", "report", "mixed-session.jsonl")
    r = ctxlint.check([str(unknown), session])
    assert [s.path for s in r.skipped] == [str(unknown)] and r.by_rule()["duplicate-system-event"] == 1
    # An empty folder: nothing skipped, nothing checked; the command warns and exits 0.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert ctxlint.check(str(empty)).files == []
