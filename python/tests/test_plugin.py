"""`pytest --ctxlint` on a small copy of pydantic-ai's cassettes (taken from the
shared corpus at test time, laid out as pydantic-ai lays them out, replayed with
pytest-recording): a planted history rewrite fails its test, a clean cassette
passes, the markers expect or skip a rule, and the `ctxlint` fixture's files are
judged too."""
import os
import shutil

import pytest

from conftest import CORPUS, CASES, need_corpus

CLEAN = "vcr-cassette/openai-chat/test_openai_tool_output.yaml"
REAL_DEFECT = "vcr-cassette/anthropic/test_anthropic_thinking_agui_0_1_10_drops_prefix.yaml"
TOOL = "          description: ''\n          name: get_user_country"

# pydantic-ai stores request and response bodies parsed (`parsed_body`), with a
# serializer of its own registered for pytest-recording; this is a minimal one.
CONFTEST = '''
import json
import yaml


class ParsedBody:
    @staticmethod
    def deserialize(text):
        data = yaml.safe_load(text)
        for it in data["interactions"]:
            req, resp = it["request"], it["response"]
            if "parsed_body" in req:
                req["body"] = json.dumps(req.pop("parsed_body"))
            if "parsed_body" in resp:
                resp["body"] = {"string": json.dumps(resp.pop("parsed_body"))}
        return data

    @staticmethod
    def serialize(data):
        return yaml.safe_dump(data)


def pytest_recording_configure(config, vcr):
    vcr.register_serializer("yaml", ParsedBody)
'''

TESTS = '''
import pytest

@pytest.mark.vcr
def test_clean():
    pass

@pytest.mark.vcr
def test_planted():
    pass

@pytest.mark.vcr
def test_real_defect():
    pass

@pytest.mark.vcr
@pytest.mark.ctxlint_expect("history-rewrite")
def test_planted_expected():
    pass

@pytest.mark.vcr
@pytest.mark.ctxlint_expect("CTX202")
def test_clean_expected():
    pass

@pytest.mark.vcr
@pytest.mark.ctxlint_skip("history-rewrite")
def test_planted_skipped():
    pass

def test_vcrpy_directly():
    import vcr
    from conftest import ParsedBody
    v = vcr.VCR(record_mode="none")
    v.register_serializer("yaml", ParsedBody)
    with v.use_cassette("cassettes/test_openai/test_planted.yaml"):
        pass

def test_fixture(ctxlint):
    report = ctxlint(SESSION)
    assert report.by_rule()["orphan-tool-result"] == 1
'''


@pytest.fixture
def project(pytester):
    need_corpus()
    models = pytester.path / "tests" / "models"
    cassettes = models / "cassettes" / "test_openai"
    cassettes.mkdir(parents=True)
    clean = open(os.path.join(CORPUS, CLEAN)).read()
    assert clean.count(TOOL) == 2
    # The second request re-sends the first one's tools with one description
    # changed: the prompt cache's prefix breaks at the tools (a history rewrite).
    first = clean.index(TOOL) + len(TOOL)
    planted = clean[:first] + clean[first:].replace(TOOL, TOOL.replace("''", "Looks up the user's country"), 1)
    for name, text in [("clean", clean), ("clean_expected", clean), ("planted", planted),
                       ("planted_expected", planted), ("planted_skipped", planted)]:
        (cassettes / f"test_{name}.yaml").write_text(text)
    shutil.copy(os.path.join(CORPUS, REAL_DEFECT), cassettes / "test_real_defect.yaml")
    session = os.path.join(CASES, "..", "report", "mixed-session.jsonl")
    (models / "test_openai.py").write_text(f"SESSION = {os.path.abspath(session)!r}\n" + TESTS)
    (models / "conftest.py").write_text(CONFTEST)
    return models


def test_cassettes_with_defects_fail_their_tests(project, pytester):
    os.chdir(project)
    r = pytester.runpytest_subprocess("--ctxlint", "--record-mode=none", "-v", "-p", "no:cacheprovider", "test_openai.py")
    text = r.stdout.str()
    got = outcomes_local(r)
    assert got == {
        "test_clean": "PASSED",
        "test_planted": "FAILED",
        "test_real_defect": "FAILED",
        "test_planted_expected": "PASSED",
        "test_clean_expected": "FAILED",
        "test_planted_skipped": "PASSED",
        "test_vcrpy_directly": "FAILED",
        "test_fixture": "FAILED",
    }, text
    assert "ctxlint found 1 defect(s) in the requests this test recorded:" in text
    assert "cassettes/test_openai/test_planted.yaml:" in text and "CTX202 history-rewrite [warning]" in text
    assert "test_real_defect.yaml:222: CTX202 history-rewrite [warning]" in text
    assert "ctxlint_expect: ctxlint found no CTX202 in cassettes/test_openai/test_clean_expected.yaml" in text
    assert "CTX302 orphan-tool-result [error]" in text


def test_fail_on_error_lets_warnings_pass(project, pytester):
    os.chdir(project)
    r = pytester.runpytest_subprocess("--ctxlint", "--ctxlint-fail-on=error", "--record-mode=none", "-v", "-p", "no:cacheprovider", "test_openai.py")
    got = outcomes_local(r)
    assert got["test_planted"] == "PASSED" and got["test_real_defect"] == "PASSED"
    assert got["test_fixture"] == "FAILED"  # its session holds errors


def test_without_the_option_nothing_is_linted(project, pytester):
    os.chdir(project)
    r = pytester.runpytest_subprocess("--record-mode=none", "-v", "-p", "no:cacheprovider", "test_openai.py")
    assert set(outcomes_local(r).values()) == {"PASSED"}, r.stdout.str()


def outcomes_local(result):
    out = {}
    for line in result.outlines:
        if line.startswith("test_openai.py::"):
            name = line.split("::")[1].split()[0]
            for word in ("PASSED", "FAILED", "ERROR"):
                if f" {word}" in line:
                    out[name] = word
    return out
