#!/usr/bin/env python3
"""ctxlint benchmark: speed and memory against baselines, in one run.

Usage:  python3 bench/bench.py [--quick] [--out bench-out] [--bin target/release/ctxlint]

Generates seeded pi sessions with ../shared/bench/gen_session.py (about 30, 100 and
300 MB; --quick uses 3, 10 and 30 MB), then measures, median of several runs each:
  - `ctxlint check` on each session, against a Python loop that only calls json.loads
    on each line, and `jq -c . >/dev/null` where jq is installed;
  - `ctxlint fence OLD NEW` on two snapshots of the largest session (one owned append, and
    a long append of 2,000 owned entries), against `sha256sum NEW` and `cmp OLD NEW`
    (target: >= 1 GB/s, verdict append-owned); `--only fence` runs this step alone;
  - hostile shapes (reused tool-call ids, torn lines = many findings in SARIF, torn lines
    then dangling parents, one deep parent chain) at 1x, 2x and 4x sizes: time and peak
    RSS must grow linearly
  - `ctxlint show` (the default, compact view, to /dev/null) on the largest session: wall time
    and peak RSS, against `check` on the same file (target: at most 3x, RSS under 25% of the file);
  - `ctxlint check` on a folder of 5,000 small sessions with 1 and 2 threads;
  - `ctxlint repro --all` on the largest session (one reduced, anonymised case per planted
    defect): wall time, peak RSS, the largest case, and whether every case passes
    ../shared/cases/run_cases.py.
  - `otel-genai`: an OTLP/JSON lines trace file built by repeating the spans of
    fixtures/formats/otel-genai/span.clean.jsonl with fresh trace and span ids (and a
    marker in each conversation's first user message) up to --otel-mb MB (1,000; --quick 50),
    and an exchange log of the same requests as Chat bodies, about the same size: `check` on
    both, wall time, peak RSS and the ratio (targets: otel within 2x of the exchange log's
    time, and no more memory than it). `--only otel` runs this step alone.
  - `html`: `check --output-format html -o report.html` on the largest session against
    `check --output-format json -o report.json` (target: at most 2x), the report's size, and
    its first paint in headless Chromium (bench/cdp.py: the Paint Timing API's
    first-contentful-paint, median of --runs fresh browsers; target: under 3 s). Skipped,
    and said so, when chromium is not installed. `--only html` runs this step alone.
  - `dask`: the 5,000 small sessions through the Python API on Dask with 2 workers
    (examples/dask_fleet.py, processes and threads) against `check` on the folder: warm (the
    workers started, as a cluster's are; target: within 1.5x) and cold (the whole script,
    Python and Dask start-up included). Needs target/py-venv (python/build-venv.sh) or
    --python. `--only dask` runs this step alone.
  - `kinds` (`--only kinds`, issue 35): one row per input kind, CPU time (user + system) against
    its baseline in the same run, and peak RSS as a share of the input: exchange logs of small
    and of large requests, a HAR, one large request body and `diff` of two (1x and 4x, against
    a Python json.loads loop or json.load), OpenTelemetry at 1x/2x/4x/8x (linear: 8x within
    8.8x), the pi session against the Python loop and -j 1 against -j 2 (wall), `show` and
    `repro --all` on it, 20,000 small clean sessions against a Python loop over them, and the
    HTML report of a folder of 10 proxy logs (bench/kinds.py writes them) against its JSON
    report. Targets: pi_check_2_5x_python_cpu, pi_check_1_7x_on_2_cores,
    small_files_0_6x_python_cpu, streams_rss_100pct, transcript_rss_30pct, show_rss_30pct,
    kinds_linear, html_2x_json_on_proxy_logs.
It checks that `check` found exactly the truth file's findings, prints a table, and
writes every figure to <out>/bench.json. Peak RSS is per process (os.wait4).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GEN = os.path.join(ROOT, "..", "shared", "bench", "gen_session.py")

PYLOOP = r"""
import json, sys
with open(sys.argv[1], 'rb') as f:
    for line in f:
        try:
            json.loads(line)
        except ValueError:
            pass
"""


# Linux counts a child's peak RSS from its parent's at fork (exec keeps the
# old address space's high-water mark), so a child of this script could not
# report less than the script's own memory (the generators' strings: 176 MB
# was every small run's "peak"). GNU time, a small process, forks the command
# itself and reports its own child's peak; without it the figure is wait4's.
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


# CPU time is wait4's (microseconds; it counts the waited-for command with
# GNU time itself), less GNU time's own share, measured once on `true`: GNU
# time prints user and system time cut to 10 ms, which took up to 10 ms
# (5 ms on average) off every figure, 4 % of a 0.13 s run and nothing of a
# 1 s one, so ratios of a small run to a large one came out high.
_TIME_SELF = None


def time_self():
    """CPU seconds GNU time adds to wait4's figure: the median over 9 runs of `time true` (which
    counts `true` too, so the figures it is taken from are, if anything, low)."""
    global _TIME_SELF
    if _TIME_SELF is None:
        xs = []
        for _ in range(9):
            p = subprocess.Popen([TIME, "-f", "", "--", "true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, ru = os.wait4(p.pid, 0)
            xs.append(ru.ru_utime + ru.ru_stime)
        _TIME_SELF = statistics.median(xs)
    return _TIME_SELF


def run(cmd, stdout=subprocess.DEVNULL, env=None):
    """Runs cmd; returns (wall seconds, peak RSS in MB, exit code, CPU seconds: user + system)."""
    t0 = time.perf_counter()
    if TIME:
        own = time_self()
        with tempfile.TemporaryFile() as rss:
            p = subprocess.Popen([TIME, "-f", "%M %U %S", "-o", f"/dev/fd/{rss.fileno()}", "--", *cmd], stdout=stdout,
                                 stderr=subprocess.DEVNULL, env=env, pass_fds=(rss.fileno(),))
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            rss.seek(0)
            fields = rss.read().decode().split()
        if len(fields) >= 3 and fields[-3].isdigit():
            cpu = max(ru.ru_utime + ru.ru_stime - own, float(fields[-2]) + float(fields[-1]))
            return wall, int(fields[-3]) / 1024.0, os.waitstatus_to_exitcode(status), cpu
        # (time reported nothing: the command could not start)
        return wall, 0.0, os.waitstatus_to_exitcode(status), 0.0
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    return wall, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime


def median_run(cmd, runs, env=None):
    return summarise([run(cmd, env=env) for _ in range(runs)])


def summarise(res):
    """Median, min and max wall time, median CPU time, peak RSS and last exit code of
    (wall, rss, exit, cpu) runs."""
    return {
        "cpu_s": statistics.median(r[3] for r in res),
        "wall_s": statistics.median(r[0] for r in res),
        "wall_min_s": min(r[0] for r in res),
        "wall_max_s": max(r[0] for r in res),
        "rss_mb": max(r[1] for r in res),
        "exit": res[-1][2],
    }


def hostile(shape, n, out):
    """Writes a pi session of n units of one hostile shape: every turn's tool
    calls reuse the ids call_0/call_1 (as local models emit); n torn lines
    (one malformed-line finding each, SARIF output; past 10,000 counted, not
    kept); n torn lines then n dangling parents; one parent chain n entries
    deep."""
    ts = "2026-03-12T10:00:00.000Z"
    with open(out, "w") as f:
        f.write(json.dumps({"type": "session", "version": 3, "id": "h", "timestamp": ts, "cwd": "/w"}) + "\n")
        parent = None
        def entry(i, msg):
            nonlocal parent
            e = {"type": "message", "id": f"e{i:08x}", "parentId": parent, "timestamp": ts, "message": msg}
            parent = e["id"]
            f.write(json.dumps(e) + "\n")
        for i in range(n):
            if shape == "reused-tool-ids":
                entry(4 * i, {"role": "user", "content": [{"type": "text", "text": f"turn {i}: read the two files"}]})
                entry(4 * i + 1, {"role": "assistant", "content": [{"type": "toolCall", "id": f"call_{j}", "name": "read", "arguments": {"path": f"f{j}.txt"}} for j in range(2)],
                                   "provider": "local", "model": "m", "stopReason": "toolUse"})
                for j in range(2):
                    entry(4 * i + 2 + j, {"role": "toolResult", "toolCallId": f"call_{j}", "toolName": "read", "content": [{"type": "text", "text": f"contents {i} {j}"}], "isError": False})
            elif shape == "torn-lines":
                f.write('{"type":"message","id":"t%08x","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"cut\n' % i)
            elif shape == "dangling-after-torn":
                # n torn lines, each carrying an id, then n entries whose parents are no entry
                # (the torn lines' ids are looked up for every dangling parent).
                f.write('{"type":"message","id":"p%08x","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"cut\n' % i)
                if i == n - 1:
                    for j in range(n):
                        e = {"type": "message", "id": f"c{j:08x}", "parentId": f"q{j:08x}", "timestamp": ts,
                             "message": {"role": "user", "content": [{"type": "text", "text": "x"}]}}
                        f.write(json.dumps(e) + "\n")
            else:
                entry(i, {"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": f"step {i}"}], **({} if i % 2 == 0 else {"provider": "p", "model": "m", "stopReason": "stop"})})


FORMATS = os.path.join(ROOT, "fixtures", "formats")


def format_shape(shape, n, out):
    """Writes n units of a session-store shape that was superlinear (issue 32,
    items 8-11): a Cline history on one line (n user/assistant pairs), a
    Gemini CLI legacy JSON (n pairs, indented) and JSONL (n pairs), a HAR
    of n chat requests on one line, an Agents SDK database of n sessions, an
    OpenCode store of n sessions without its indexes. Each is built from a fixture's record
    shape; linear time means the 4x point takes about 4 times the 1x point."""
    if shape == "cline-one-line":
        msgs = []
        for i in range(n):
            msgs.append({"role": "user", "content": [{"type": "text", "text": f"<task>\nrename the helper\n</task>" if i == 0 else f"[execute_command for 'ls'] Result:\nfile{i}.txt"}], "ts": 1764662505000 + 2 * i})
            msgs.append({"role": "assistant", "content": [{"type": "text", "text": f"<execute_command>\n<command>ls {i}</command>\n</execute_command>"}], "ts": 1764662506000 + 2 * i})
        text = json.dumps(msgs)
    elif shape == "cline-findings-one-line":
        # Every one of n tool rounds also returns a result for a call never
        # made: n findings placed in one line.
        # (Cline's `ts` on each message: how a history is recognised.)
        msgs = [{"role": "user", "content": [{"type": "text", "text": "<task>\nExplain src/app.ts\n</task>"}], "ts": 1764662505000}]
        for i in range(n):
            msgs.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "read_file", "input": {"path": "src/app.ts"}}], "ts": 1764662506000 + 2 * i})
            msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "export const app = 1;"},
                                                     {"type": "tool_result", "tool_use_id": f"toolu_x{i}", "content": "export const app = 1;"}], "ts": 1764662507000 + 2 * i})
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}], "ts": 1764662505000 + 2 * n + 9})
        text = json.dumps(msgs)
    elif shape == "chat-findings-one-line":
        # An OpenAI chat request body on one line with n tool results whose
        # calls were never made: n findings placed in one line.
        msgs = [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "go"}]
        msgs += [{"role": "tool", "tool_call_id": f"call_{i}", "content": f"result {i}"} for i in range(n)]
        text = json.dumps({"model": "gpt-4o", "messages": msgs})
    elif shape == "cassette-findings":
        # A vcrpy cassette of n chat requests, each with a tool result whose
        # call was never made: n findings placed by their YAML lines.
        lines = ["interactions:"]
        for i in range(n):
            body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "go"}, {"role": "tool", "tool_call_id": f"c{i}", "content": "r"}]}
            lines += ["- request:", f"    body: '{json.dumps(body)}'", "    headers:", "      content-type:", "      - application/json",
                      "    method: POST", "    uri: https://api.openai.com/v1/chat/completions", "  response:", "    body:",
                      "      string: '{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"ok\"}}]}'",
                      "    headers: {}", "    status:", "      code: 200", "      message: OK"]
        lines.append("version: 1")
        text = "\n".join(lines) + "\n"
    elif shape in ("gemini-legacy", "gemini-jsonl"):
        ms = []
        for i in range(n):
            ms.append({"id": f"u{i}", "timestamp": "2026-11-20T09:00:01.000Z", "type": "user", "content": [{"text": f"question {i}"}]})
            ms.append({"id": f"g{i}", "timestamp": "2026-11-20T09:00:02.000Z", "type": "gemini", "content": f"answer {i}"})
        if shape == "gemini-legacy":
            d = json.load(open(os.path.join(FORMATS, "gemini-cli", "legacy-clean.json")))
            d["messages"] = ms
            text = json.dumps(d, indent=2)
        else:
            head = open(os.path.join(FORMATS, "gemini-cli", "clean.jsonl")).readline()
            text = head + "".join(json.dumps(m) + "\n" for m in ms)
    elif shape == "agents-db-sessions":
        import sqlite3
        if os.path.exists(out):
            os.remove(out)
        c = sqlite3.connect(out)
        c.execute("CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
                  "message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
        c.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)",
                      [(f"s{i}", json.dumps({"content": f"hello {i}", "role": "user"})) for i in range(n)])
        c.commit()
        c.close()
        return
    elif shape == "opencode-no-index":
        # An OpenCode store of n sessions (the fixture's one session copied n
        # times, ids changed) without the session_id indexes OpenCode creates.
        import shutil, sqlite3
        if os.path.exists(out):
            os.remove(out)
        shutil.copy(os.path.join(FORMATS, "opencode", "clean.db"), out)
        c = sqlite3.connect(out)
        for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").fetchall():
            c.execute(f"DROP INDEX `{name}`")
        ses = c.execute("SELECT * FROM session").fetchone()
        msgs = c.execute("SELECT * FROM message").fetchall()
        parts = c.execute("SELECT * FROM part").fetchall()
        for i in range(1, n):
            sid = f"{ses[0]}_{i}"
            c.execute(f"INSERT INTO session VALUES ({','.join('?' * len(ses))})", (sid,) + tuple(ses[1:]))
            c.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                          [(f"{m[0]}_{i}", sid, m[2], m[3], m[4]) for m in msgs])
            c.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                          [(f"{p[0]}_{i}", f"{p[1]}_{i}", sid, p[3], p[4], p[5]) for p in parts])
        c.commit()
        c.close()
        return
    elif shape == "show-branching":
        # A pi session of n/2 user/assistant pairs, then n/2 retries that
        # each branch off its tip (a user message and a reply): `show` walks
        # every step, and most steps are on another branch than the last.
        lines = [{"type": "session", "version": 3, "id": "s1", "timestamp": "2026-04-19T00:00:00.000Z", "cwd": "/w"}]
        def ent(parent, role, text):
            i = f"{len(lines):08x}"
            m = {"role": role, "content": [{"type": "text", "text": text}]}
            if role == "assistant":
                m.update({"api": "anthropic-messages", "provider": "anthropic", "model": "claude", "stopReason": "stop",
                          "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}})
            lines.append({"type": "message", "id": i, "parentId": parent, "timestamp": "2026-04-19T13:00:02.000Z", "message": m})
            return i
        p = None
        for t in range(n // 2):
            p = ent(ent(p, "user", f"question {t}"), "assistant", f"answer {t}")
        for b in range(n // 2):
            ent(ent(p, "user", f"retry {b}"), "assistant", f"branch answer {b}")
        text = "".join(json.dumps(x) + "\n" for x in lines)
    elif shape in ("show-compacted", "parent-cycle"):
        # show-compacted: n turns, each compacted at once keeping only its own
        # user message (every context is small, the path long); parent-cycle:
        # n pairs whose first entry's parent is the last (one long cycle).
        lines = [{"type": "session", "version": 3, "id": "s1", "timestamp": "2026-04-19T00:00:00.000Z", "cwd": "/w"}]
        p = f"a{n - 1}" if shape == "parent-cycle" else None
        for i in range(n):
            for e in ({"type": "message", "id": f"u{i}", "message": {"role": "user", "content": [{"type": "text", "text": f"q {i}"}]}},
                      {"type": "message", "id": f"a{i}", "message": {"role": "assistant", "content": [{"type": "text", "text": f"a {i}"}],
                       "api": "anthropic-messages", "provider": "anthropic", "model": "m", "stopReason": "stop",
                       "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}}},
                      {"type": "compaction", "id": f"c{i}", "summary": "s", "firstKeptEntryId": f"u{i}", "tokensBefore": 10}):
                if e["type"] == "compaction" and shape == "parent-cycle":
                    continue
                e.update({"parentId": p, "timestamp": "2026-04-19T13:00:02.000Z"})
                lines.append(e)
                p = e["id"]
        text = "".join(json.dumps(x) + "\n" for x in lines)
    else:  # har-one-line
        d = json.load(open(os.path.join(FORMATS, "har", "clean.har")))
        e0 = next(e for e in d["log"]["entries"] if e["request"]["method"] == "POST")
        body = json.loads(e0["request"]["postData"]["text"])
        entries = []
        for i in range(n):
            e = json.loads(json.dumps(e0))
            body["messages"] = [{"role": "user", "content": f"question {i}"}]
            e["request"]["postData"]["text"] = json.dumps(body)
            entries.append(e)
        d["log"]["entries"] = entries
        text = json.dumps(d)
    with open(out, "w") as f:
        f.write(text)


def shapes_step(a, report, rows):
    """Session-store shapes that were superlinear (issue 32, items 8-11, and
    findings placed in one long line or YAML document, the attack round): time
    and peak RSS at 1x, 2x and 4x; target `shapes_linear`: the 4x point within
    6 times the 1x point's time."""
    report.setdefault("hostile", {})
    for shape, ext, base in (("cline-one-line", "json", 5000), ("gemini-legacy", "json", 5000),
                             ("gemini-jsonl", "jsonl", 25000), ("har-one-line", "har", 2500),
                             ("agents-db-sessions", "db", 20000), ("opencode-no-index", "db", 1000),
                             ("cline-findings-one-line", "json", 2500), ("chat-findings-one-line", "json", 2500),
                             ("cassette-findings", "yaml", 500), ("show-branching", "jsonl", 5000),
                             ("show-compacted", "jsonl", 4000), ("parent-cycle", "jsonl", 10000)):
        n0 = max(base // 10, 1) if a.quick else base
        pts = []
        for k in (1, 2, 4):
            if shape.startswith("cline-"):
                # Cline's own file name, as in a task folder.
                os.makedirs(os.path.join(a.out, f"shape-{shape}-{k}x"), exist_ok=True)
                hp = os.path.join(a.out, f"shape-{shape}-{k}x", "api_conversation_history.json")
            else:
                hp = os.path.join(a.out, f"shape-{shape}-{k}x.{ext}")
            if not os.path.exists(hp):
                format_shape(shape, n0 * k, hp)
            mb = os.path.getsize(hp) / 1e6
            if shape.startswith("show-"):
                r = median_run([a.bin, "show", hp, "--output-format", "json"], a.runs)
            else:
                r = median_run([a.bin, "check", hp, "--output-format", "sarif", "-o", os.devnull], a.runs)
            if r["exit"] not in (0, 1):
                sys.exit(f"bench: ctxlint exited {r['exit']} on {hp}: the shape measures nothing")
            pts.append({"x": k, "size_mb": round(mb, 1), "wall_s": r["wall_s"], "rss_mb": r["rss_mb"], "exit": r["exit"]})
        t_ratio = pts[-1]["wall_s"] / max(pts[0]["wall_s"], 1e-3)
        m_ratio = pts[-1]["rss_mb"] / max(pts[0]["rss_mb"], 1e-3)
        report["hostile"][shape] = {"points": pts, "time_4x_over_1x": t_ratio, "rss_4x_over_1x": m_ratio}
        rows.append((f"shape {shape} 4x", pts[-1]["wall_s"], f"1x {pts[0]['wall_s']:.2f}s {pts[0]['rss_mb']:.0f}MB", t_ratio, pts[-1]["size_mb"] / max(pts[-1]["wall_s"], 1e-3), pts[-1]["rss_mb"], f"rss x{m_ratio:.1f}"))
    report["targets"]["shapes_linear"] = all(
        report["hostile"][s]["time_4x_over_1x"] <= 6.0
        for s in ("cline-one-line", "gemini-legacy", "gemini-jsonl", "har-one-line", "agents-db-sessions",
                  "opencode-no-index", "cline-findings-one-line", "chat-findings-one-line", "cassette-findings",
                  "show-branching", "show-compacted", "parent-cycle"))


def gen(turns, out, truth, seed=7, clean=False):
    if not os.path.exists(out):
        extra = ["--dup-events", "0", "--dangling", "0", "--torn", "0"] if clean else []
        subprocess.run([sys.executable, GEN, "--turns", str(turns), "--seed", str(seed), "--out", out, "--truth", truth, *extra], check=True)


OTEL_FIXTURE = os.path.join(ROOT, "fixtures", "formats", "otel-genai", "span.clean.jsonl")


def otel_files(out, target_mb):
    """Writes <out>/otel-<N>mb.jsonl (OTLP/JSON lines) and <out>/otel-<N>mb.exchanges.jsonl
    (the same requests as Chat bodies in an exchange log), each about target_mb MB; returns
    both paths and the number of requests."""
    otel = os.path.join(out, f"otel-{target_mb}mb.jsonl")
    ex = os.path.join(out, f"otel-{target_mb}mb.exchanges.jsonl")
    records = [json.loads(l) for l in open(OTEL_FIXTURE, encoding="utf-8")]
    target = target_mb * 1_000_000

    def chat(msgs):
        out = []
        for m in msgs:
            parts = m.get("parts", [])
            texts = [p.get("content", "") for p in parts if p.get("type") == "text"]
            calls = [p for p in parts if p.get("type") == "tool_call"]
            results = [p for p in parts if p.get("type") == "tool_call_response"]
            if results:
                out += [{"role": "tool", "tool_call_id": r.get("id"), "content": str(r.get("response", ""))} for r in results]
            elif calls:
                out.append({"role": "assistant", "content": None, "tool_calls": [
                    {"id": c.get("id"), "type": "function", "function": {"name": c.get("name"), "arguments": json.dumps(c.get("arguments"))}} for c in calls]})
            else:
                out.append({"role": m["role"], "content": "\n".join(texts)})
        return out

    n = 0
    with open(otel, "w", encoding="utf-8") as fo, open(ex, "w", encoding="utf-8") as fe:
        rep = 0
        while fo.tell() < target:
            rep += 1
            for rec in records:
                rec = json.loads(json.dumps(rec))
                for rs in rec.get("resourceSpans", []):
                    for ss in rs.get("scopeSpans", []):
                        for sp in ss.get("spans", []):
                            # Fresh ids: each repetition is its own trace.
                            sp["traceId"] = f"{rep:016x}" + sp["traceId"][16:]
                            sp["spanId"] = f"{rep:08x}" + sp["spanId"][8:]
                            if "parentSpanId" in sp:
                                sp["parentSpanId"] = f"{rep:08x}" + sp["parentSpanId"][8:]
                            for at in sp.get("attributes", []):
                                if at["key"] != "gen_ai.input.messages":
                                    continue
                                msgs = json.loads(at["value"]["stringValue"])
                                for m in msgs:
                                    if m["role"] == "user":
                                        m["parts"][0]["content"] = f"[run {rep}] " + m["parts"][0]["content"]
                                        break
                                at["value"]["stringValue"] = json.dumps(msgs, separators=(",", ":"))
                                fe.write(json.dumps({"request": {"path": "/v1/chat/completions", "body": {"model": "gpt-4o-mini", "messages": chat(msgs)}},
                                                     "response": {"status": 200, "body": {"id": f"chatcmpl-{rep}-{n}"}}}, separators=(",", ":")) + "\n")
                                n += 1
                fo.write(json.dumps(rec, separators=(",", ":")) + "\n")
        # Pad the exchange log to the same size with its own lines repeated under fresh markers.
    while os.path.getsize(ex) < os.path.getsize(otel):
        with open(ex, "r+", encoding="utf-8") as fe:
            lines = fe.read().splitlines()
            fe.seek(0, 2)
            for i, l in enumerate(lines):
                fe.write(l.replace("[run ", f"[pad {i} run ") + "\n")
                if fe.tell() >= os.path.getsize(otel):
                    break
    return otel, ex, n


def otel_step(a, report, rows):
    mb = a.otel_mb or (50 if a.quick else 1000)
    otel, ex, n = otel_files(a.out, mb)
    res = {}
    for what, path in (("otel", otel), ("exchange_log", ex)):
        out = subprocess.run([a.bin, "check", path, "--output-format", "json"], capture_output=True)
        doc = json.loads(out.stdout)
        r = median_run([a.bin, "check", path, "--output-format", "json"], a.runs)
        size = os.path.getsize(path) / 1e6
        r.update({"size_mb": round(size, 1), "requests": doc["files"][0]["requests"], "findings": len(doc["findings"]),
                  "mb_per_s": size / r["wall_s"], "rss_pct_of_file": 100.0 * r["rss_mb"] / size})
        res[what] = r
        rows.append((f"check {what} {size:.0f} MB", r["wall_s"], f"{r['requests']} requests", 0, r["mb_per_s"], r["rss_mb"], f"{r['findings']} findings, RSS {r['rss_pct_of_file']:.0f}% of file"))
    ratio = res["otel"]["wall_s"] / res["exchange_log"]["wall_s"]
    res["ratio_otel_vs_exchange_log"] = ratio
    report["otel"] = res
    report["targets"]["otel_within_2x_of_exchange_log"] = ratio <= 2.0
    # Streams of requests hold every request (no packed arena as transcripts have):
    # memory is compared with the exchange log's, and its share of the file recorded.
    report["targets"]["otel_rss_at_most_exchange_log"] = res["otel"]["rss_mb"] <= res["exchange_log"]["rss_mb"]
    rows.append(("otel / exchange log", res["otel"]["wall_s"], f"exchange log {res['exchange_log']['wall_s']:.2f}s", ratio, 0, res["otel"]["rss_mb"], ""))


def html_step(a, report, rows, path, size_mb):
    """HTML report against the JSON report on `path`, and its first paint in Chromium."""
    import cdp
    html_out = os.path.join(a.out, "report.html")
    json_out = os.path.join(a.out, "report.json")
    js = median_run([a.bin, "check", path, "--output-format", "json", "-o", json_out], a.runs)
    ht = median_run([a.bin, "check", path, "--output-format", "html", "-o", html_out], a.runs)
    ratio = ht["wall_s"] / js["wall_s"]
    res = {"size_mb": round(size_mb, 1), "json": js, "html": ht, "ratio_vs_json": ratio,
           "report_mb": round(os.path.getsize(html_out) / 1e6, 1)}
    rows.append((f"check html {size_mb:.0f} MB", ht["wall_s"], f"json {js['wall_s']:.2f}s", ratio, size_mb / ht["wall_s"], ht["rss_mb"], f"report {res['report_mb']} MB"))
    report["targets"]["html_within_2x_of_json"] = ratio <= 2.0
    binary = cdp.chromium()
    if binary is None:
        print("bench: chromium is not installed (apt-get install chromium): first paint NOT measured", file=sys.stderr)
        res["first_paint"] = None
        report["targets"]["html_first_paint_under_3s"] = False
    else:
        url = "file://" + os.path.abspath(html_out)
        paints = [cdp.first_paint(binary, url) for _ in range(a.runs)]
        fcp = statistics.median(p["first_contentful_paint_ms"] for p in paints)
        load = statistics.median(p["load_ms"] for p in paints)
        drawn = statistics.median(p["rendered_ms"] or 0 for p in paints)
        res["first_paint"] = {"runs": paints, "first_contentful_paint_ms": fcp, "rendered_ms": drawn, "load_ms": load}
        rows.append(("html first paint", fcp / 1000, f"drawn {drawn / 1000:.2f}s load {load / 1000:.2f}s", 0, 0, 0, f"{paints[-1]['timeline_bars']} timeline bars"))
        report["targets"]["html_first_paint_under_3s"] = fcp < 3000
    report["html"] = res


def many_files(a):
    """The folder of 5,000 small sessions (500 with --quick): one seeded session, copied."""
    many = os.path.join(a.out, "many")
    n_files = 500 if a.quick else 5000
    if not os.path.isdir(many) or len(os.listdir(many)) != n_files:
        shutil.rmtree(many, ignore_errors=True)
        os.makedirs(many)
        seedfile = os.path.join(a.out, "small.jsonl")
        gen(3, seedfile, seedfile + ".truth.json", seed=11)
        data = open(seedfile, "rb").read()
        for i in range(n_files):
            with open(os.path.join(many, f"s{i:05d}.jsonl"), "wb") as f:
                f.write(data)
    return many, n_files


DASK_WARM = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import concurrent.futures, multiprocessing
import dask, dask_fleet
files = dask_fleet.transcripts(sys.argv[2])
scheduler = sys.argv[3]
# Warm: the 2 workers are started (a real cluster's are), then the fleet is timed.
if scheduler == "processes":
    pool = concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
else:
    pool = concurrent.futures.ThreadPoolExecutor(2)
dask_fleet.lint_fleet(files[:8], workers=2, scheduler=scheduler, pool=pool)
t0 = time.perf_counter()
lines, counts = dask_fleet.lint_fleet(files, workers=2, scheduler=scheduler, pool=pool)
print(json.dumps({"wall_s": time.perf_counter() - t0, "findings": len(lines)}))
"""


def dask_step(a, report, rows):
    """5,000 small sessions through the Python API on Dask with 2 workers against the CLI."""
    py = a.python or os.path.join(ROOT, "target", "py-venv", "bin", "python")
    if not os.path.exists(py):
        print(f"bench: {py} is missing (python/build-venv.sh builds it): Dask NOT measured", file=sys.stderr)
        report["targets"]["dask_within_1_5x_of_cli"] = False
        return
    many, n_files = many_files(a)
    example = os.path.join(ROOT, "examples", "dask_fleet.py")
    cli_cmd = [a.bin, "check", many, "--output-format", "json-lines", "-o", os.devnull]
    res = {"files": n_files}
    cli_runs, cold = [], {"processes": [], "threads": []}
    warm = {"processes": [], "threads": []}
    for _ in range(a.runs):
        cli_runs.append(run(cli_cmd))
        for sched in ("processes", "threads"):
            cold[sched].append(run([py, example, many, "--workers", "2", "--scheduler", sched, "--out", os.devnull]))
            out = subprocess.run([py, "-c", DASK_WARM, os.path.join(ROOT, "examples"), many, sched], capture_output=True, text=True)
            warm[sched].append(json.loads(out.stdout)["wall_s"])
    res["cli"] = summarise(cli_runs)
    c = res["cli"]["wall_s"]
    for sched in ("processes", "threads"):
        res[sched] = {"cold": summarise(cold[sched]), "warm_wall_s": statistics.median(warm[sched])}
        res[sched]["cold_ratio"] = res[sched]["cold"]["wall_s"] / c
        res[sched]["warm_ratio"] = res[sched]["warm_wall_s"] / c
        rows.append((f"dask {sched} warm", res[sched]["warm_wall_s"], f"cli {c:.2f}s", res[sched]["warm_ratio"], 0, 0, f"cold {res[sched]['cold']['wall_s']:.2f}s ({res[sched]['cold_ratio']:.2f}x, Python and Dask start-up included)"))
    report["dask"] = res
    report["targets"]["dask_within_1_5x_of_cli"] = min(res["processes"]["warm_ratio"], res["threads"]["warm_ratio"]) <= 1.5


PYFILES = r"""
import json, os, sys
for d, _, names in os.walk(sys.argv[1]):
    for n in names:
        with open(os.path.join(d, n), 'rb') as f:
            for line in f:
                try:
                    json.loads(line)
                except ValueError:
                    pass
"""

PYDOC = r"""
import json, sys
for p in sys.argv[1:]:
    with open(p, 'rb') as f:
        json.load(f)
"""


def kinds_step(a, report, rows):
    """One row per input kind of issue 35, each against its baseline in the same run, CPU time
    (user + system, median of --runs): exchange logs of small and of large requests, a HAR,
    OpenTelemetry at 1x/2x/4x/8x, one large request body, `diff` of two large bodies,
    `repro --all`, `show`, the pi session against the Python json.loads loop (and -j 1 against
    -j 2, wall), 20,000 small sessions against a Python loop over them, and the HTML report
    of a folder of 10 proxy logs against its JSON report. Peak RSS as a share of the input
    (`diff`: of both inputs); 1x against 4x for linearity."""
    import kinds
    out = os.path.join(a.out, "kinds")
    os.makedirs(out, exist_ok=True)
    unit = 5 if a.quick else 25
    res = report.setdefault("kinds", {})

    def measure(name, cmd, inputs, base_cmd=None, base_name=None):
        size = sum(os.path.getsize(p) if os.path.isfile(p) else
                   sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs) for p in inputs) / 1e6
        r = median_run(cmd, a.runs)
        if r["exit"] not in (0, 1):
            sys.exit(f"bench: ctxlint exited {r['exit']} on {name}: {' '.join(cmd)}")
        row = {"size_mb": round(size, 1), "ctxlint": r, "mb_per_s_cpu": size / max(r["cpu_s"], 1e-3),
               "rss_pct_of_input": 100.0 * r["rss_mb"] / max(size, 1e-3)}
        base = None
        if base_cmd:
            base = median_run(base_cmd, a.runs)
            row[base_name] = base
            row["cpu_ratio"] = r["cpu_s"] / max(base["cpu_s"], 1e-3)
        res[name] = row
        rows.append((name, r["cpu_s"], f"{base_name} {base['cpu_s']:.2f}s" if base else "", row.get("cpu_ratio", 0),
                     row["mb_per_s_cpu"], r["rss_mb"], f"RSS {row['rss_pct_of_input']:.0f}% of input"))
        return row

    def linear(name, make, ext, xs=(1, 4), argv=("check",), tail=("--output-format", "json")):
        pts = []
        for x in xs:
            p = os.path.join(out, f"{name}-{x}x.{ext}")
            if not os.path.exists(p):
                make(p, unit * x)
            pts.append(measure(f"{name} {x}x", [a.bin, *argv, p, *tail], [p],
                               [sys.executable, "-c", PYDOC if ext != "jsonl" else PYLOOP, p], "python"))
        ratio = pts[-1]["ctxlint"]["cpu_s"] / max(pts[0]["ctxlint"]["cpu_s"], 1e-3)
        res[f"{name} linear"] = {"xs": list(xs), "cpu_ratio": ratio, "limit": xs[-1] * 1.1}
        return pts, ratio

    targets = report["targets"]
    rss_ok, lin_ok = [], []
    for name, make, ext in (("exchange-log-small", lambda p, mb: kinds.exchange_log(p, mb), "jsonl"),
                            ("exchange-log-large", lambda p, mb: kinds.exchange_log(p, mb, large=True), "jsonl"),
                            ("har", kinds.har, "har"),
                            ("large-body", kinds.large_body, "json")):
        pts, ratio = linear(name, make, ext)
        lin_ok.append(ratio <= 4.4)
        rss_ok += [p["rss_pct_of_input"] <= 100 for p in pts]
    # OpenTelemetry at 1x, 2x, 4x and 8x (the superlinear one).
    pts = []
    for x in (1, 2, 4, 8):
        # (Sizes exactly proportional: 12, 24, 48, 96 MB; --quick 2, 4, 8, 16.)
        otel, _, _ = otel_files(out, (unit // 2 if unit > 5 else 2) * x)
        pts.append(measure(f"otel {x}x", [a.bin, "check", otel, "--output-format", "json"], [otel],
                           [sys.executable, "-c", PYLOOP, otel], "python"))
    otel_ratio = pts[-1]["ctxlint"]["cpu_s"] / max(pts[0]["ctxlint"]["cpu_s"], 1e-3)
    res["otel linear"] = {"xs": [1, 2, 4, 8], "cpu_ratio": otel_ratio, "limit": 8.8}
    lin_ok.append(otel_ratio <= 8.8)
    rss_ok += [p["rss_pct_of_input"] <= 100 for p in pts]
    # diff of two large bodies (RSS of both inputs).
    for x in (1, 4):
        da, db = os.path.join(out, f"diff-a-{x}x.json"), os.path.join(out, f"diff-b-{x}x.json")
        if not os.path.exists(db):
            kinds.diff_pair(da, db, unit * x / 2)
        pts = measure(f"diff {x}x", [a.bin, "diff", da, db, "--output-format", "json"], [da, db],
                      [sys.executable, "-c", PYDOC, da, db], "python")
        rss_ok.append(pts["rss_pct_of_input"] <= 100)
    r1, r4 = res["diff 1x"]["ctxlint"]["cpu_s"], res["diff 4x"]["ctxlint"]["cpu_s"]
    lin_ok.append(r4 / max(r1, 1e-3) <= 4.4)
    # The pi session: check against the Python loop, -j 1 against -j 2; show and repro --all.
    # (The session the issue measured is about 300 MB.)
    mb = 30 if a.quick else 300
    pi = os.path.join(a.out, f"session-{mb}mb.jsonl")
    gen(3500 if a.quick else 35000, pi, pi + ".truth.json")
    row = measure("pi check", [a.bin, "check", pi, "--output-format", "json"], [pi], [sys.executable, "-c", PYLOOP, pi], "python")
    targets["pi_check_2_5x_python_cpu"] = row["cpu_ratio"] <= 0.4
    targets["transcript_rss_30pct"] = row["rss_pct_of_input"] <= 30
    one, two = [], []
    for _ in range(max(a.runs, 5)):
        one.append(run([a.bin, "check", pi, "-j", "1", "--output-format", "json"]))
        two.append(run([a.bin, "check", pi, "-j", "2", "--output-format", "json"]))
    speedup = summarise(one)["wall_s"] / summarise(two)["wall_s"]
    res["pi check threads"] = {"j1": summarise(one), "j2": summarise(two), "speedup": speedup}
    rows.append(("pi check -j2 vs -j1", summarise(two)["wall_s"], f"-j1 {summarise(one)['wall_s']:.2f}s (wall)", speedup, 0, 0, "speed-up"))
    targets["pi_check_1_7x_on_2_cores"] = speedup >= 1.7
    row = measure("pi show json", [a.bin, "show", pi, "--output-format", "json"], [pi])
    targets["show_rss_30pct"] = row["rss_pct_of_input"] <= 30
    rdir = os.path.abspath(a.out).rstrip(os.sep) + "-kinds-repro"
    shutil.rmtree(rdir, ignore_errors=True)
    row = measure("pi repro --all", [a.bin, "repro", pi, "--all", "-o", rdir, "--force"], [pi])
    rss_ok.append(row["rss_pct_of_input"] <= 100)
    # 20,000 small sessions against a Python loop over them.
    many = os.path.join(a.out, "many20k")
    n_files = 2000 if a.quick else 20000
    if not os.path.isdir(many) or len(os.listdir(many)) != n_files:
        shutil.rmtree(many, ignore_errors=True)
        os.makedirs(many)
        # Clean sessions: what is measured is opening and reading them, not reporting.
        seedfile = os.path.join(a.out, "small-clean.jsonl")
        gen(1, seedfile, seedfile + ".truth.json", seed=11, clean=True)
        data = open(seedfile, "rb").read()
        for i in range(n_files):
            with open(os.path.join(many, f"s{i:05d}.jsonl"), "wb") as f:
                f.write(data)
    row = measure(f"{n_files} small files", [a.bin, "check", many, "--output-format", "json"], [many],
                  [sys.executable, "-c", PYFILES, many], "python")
    targets["small_files_0_6x_python_cpu"] = row["cpu_ratio"] <= 0.6
    # HTML against JSON on a folder of proxy logs.
    logs = os.path.join(out, "proxy-logs")
    if not os.path.isdir(logs):
        kinds.proxy_logs(logs)
    row = measure("proxy logs html", [a.bin, "check", logs, "--output-format", "html", "-o", os.path.join(out, "logs.html")], [logs],
                  [a.bin, "check", logs, "--output-format", "json", "-o", os.path.join(out, "logs.json")], "json")
    targets["html_2x_json_on_proxy_logs"] = row["cpu_ratio"] <= 2.0
    targets["streams_rss_100pct"] = all(rss_ok)
    targets["kinds_linear"] = all(lin_ok)


def print_rows(rows):
    print(f"{'what':<22} {'median s':>9}  {'baseline':<30} {'ratio':>6} {'MB/s':>8} {'peak MB':>8}  note")
    for what, s, base, ratio, mbs, rss, note in rows:
        print(f"{what:<22} {s:>9.3f}  {base:<30} {ratio:>6.2f} {mbs:>8.0f} {rss:>8.1f}  {note}")


def fence_step(a, report, rows, path, size_mb):
    """fence on two snapshots of `path`: NEW = OLD + one owned append, and NEW =
    OLD + a long append (2,000 owned entries, judged line by line through the
    loader's record classification and looked up in OLD by their ids)."""
    last_id = None
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - 65536))
        for line in f.read().splitlines():
            try:
                last_id = json.loads(line).get("id", last_id)
            except ValueError:
                pass
    report["fence"] = {}
    for name, n in (("one", 1), ("long", 2000)):
        new = os.path.join(a.out, f"fence-new-{name}.jsonl")
        if not os.path.exists(new) or os.path.getsize(new) <= os.path.getsize(path):
            shutil.copyfile(path, new)
            with open(new, "a") as f:
                parent = last_id
                for i in range(n):
                    eid = f"bench{i:05d}"
                    f.write(json.dumps({"type": "label", "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", "targetId": last_id, "label": "bench"}) + "\n")
                    parent = eid
        fence_cmd = [a.bin, "fence", path, new, "--output-format", "json"]
        out = subprocess.run(fence_cmd, capture_output=True)
        verdict = json.loads(out.stdout).get("verdict") if out.returncode in (0, 1) else None
        if verdict is None:
            continue
        fence = median_run(fence_cmd, a.runs)
        sha = median_run(["sha256sum", new], a.runs)
        cmpr = median_run(["cmp", path, new], a.runs)
        gb_s = (os.path.getsize(path) + os.path.getsize(new)) / 2 / 1e9 / fence["wall_s"]
        report["fence"][name] = {"appended": n, "verdict": verdict, "ctxlint": fence, "sha256sum": sha, "cmp": cmpr, "gb_per_s": gb_s, "ratio_vs_sha256sum": fence["wall_s"] / sha["wall_s"], "ratio_vs_cmp": fence["wall_s"] / cmpr["wall_s"]}
        rows.append((f"fence {size_mb:.0f} MB +{n}", fence["wall_s"], f"sha256sum {sha['wall_s']:.2f}s cmp {cmpr['wall_s']:.2f}s", fence["wall_s"] / cmpr["wall_s"], gb_s * 1000, fence["rss_mb"], verdict))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ctxlint"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-out"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    ap.add_argument("--otel-mb", type=int, default=0, help="size of the otel-genai files (default 1000; --quick 50)")
    ap.add_argument("--only", choices=["otel", "fence", "html", "dask", "shapes", "kinds"], help="run one step alone (fence, html: on the largest session size)")
    ap.add_argument("--python", help="the Python with the ctxlint package and dask (default: target/py-venv/bin/python)")
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    if a.only:
        # One step alone: the same checks, report file and printout for each.
        if not os.path.exists(a.bin):
            sys.exit(f"bench: {a.bin} is missing: run `cargo build --release` first")
        os.makedirs(a.out, exist_ok=True)
        report, rows = {"targets": {}}, []
        if a.only in ("html", "fence"):
            turns, mb = (3500, 30) if a.quick else (35000, 300)
            path = os.path.join(a.out, f"session-{mb}mb.jsonl")
            if not os.path.exists(path):
                gen(turns, path, path + ".truth.json")
            step = html_step if a.only == "html" else fence_step
            step(a, report, rows, path, os.path.getsize(path) / 1e6)
            if a.only == "fence":
                report["targets"]["fence_1gb_per_s"] = len(report["fence"]) == 2 and all(
                    f["gb_per_s"] >= 1.0 and f["verdict"] == "append-owned" for f in report["fence"].values())
        else:
            {"dask": dask_step, "kinds": kinds_step, "shapes": shapes_step, "otel": otel_step}[a.only](a, report, rows)
        out = os.path.join(a.out, f"bench-{a.only}.json")
        with open(out, "w") as f:
            json.dump(report, f, indent=1)
        print_rows(rows)
        for k, v in report["targets"].items():
            print(f"target {k}: {'met' if v else 'NOT met'}")
        print(f"written: {out}")
        return
    if not os.path.exists(GEN):
        sys.exit(f"bench: {GEN} is missing (the shared folder must sit beside the project)")
    if not os.path.exists(a.bin):
        sys.exit(f"bench: {a.bin} is missing: run `cargo build --release` first")
    os.makedirs(a.out, exist_ok=True)
    sizes = [(350, 3), (1170, 10), (3500, 30)] if a.quick else [(3500, 30), (11700, 100), (35000, 300)]
    report = {"check": [], "show": None, "fence": None, "many": None, "targets": {}}
    rows = []
    jq = shutil.which("jq")
    largest = None
    for turns, mb in sizes:
        path = os.path.join(a.out, f"session-{mb}mb.jsonl")
        truth = path + ".truth.json"
        gen(turns, path, truth)
        size_mb = os.path.getsize(path) / 1e6
        # Correctness: exactly the planted findings (rule and line).
        out = subprocess.run([a.bin, "check", path, "--output-format", "json"], capture_output=True)
        got = sorted((f["rule"], f["line"]) for f in json.loads(out.stdout)["findings"])
        want = sorted((f["rule"], f["line"]) for f in json.load(open(truth))["findings"])
        exact = got == want
        ours = median_run([a.bin, "check", path, "--output-format", "json"], a.runs)
        py = median_run([sys.executable, "-c", PYLOOP, path], a.runs)
        row = {"size_mb": round(size_mb, 1), "turns": turns, "exact_truth": exact, "findings": len(got), "ctxlint": ours, "python_json_loads": py}
        if jq:
            row["jq"] = median_run(["sh", "-c", f"jq -c . '{path}' >/dev/null 2>&1"], a.runs)
        row["ratio_vs_python"] = ours["wall_s"] / py["wall_s"]
        row["mb_per_s"] = size_mb / ours["wall_s"]
        row["rss_pct_of_file"] = 100.0 * ours["rss_mb"] / size_mb
        report["check"].append(row)
        rows.append((f"check {size_mb:.0f} MB", ours["wall_s"], f"python {py['wall_s']:.2f}s", row["ratio_vs_python"], row["mb_per_s"], ours["rss_mb"], "exact" if exact else "WRONG"))
        largest = (path, size_mb)
    # Linearity: seconds per MB at each size.
    per_mb = [r["ctxlint"]["wall_s"] / r["size_mb"] for r in report["check"]]
    report["targets"]["linear"] = max(per_mb) <= 1.5 * min(per_mb)
    # show on the largest session (compact, the default), against check on the same file.
    path, size_mb = largest
    show = median_run([a.bin, "show", path, "--color", "never"], a.runs)
    show_json = median_run([a.bin, "show", path, "--output-format", "json"], a.runs)
    check_s = report["check"][-1]["ctxlint"]["wall_s"]
    report["show"] = {"size_mb": round(size_mb, 1), "human": show, "json": show_json,
                      "ratio_vs_check": show["wall_s"] / check_s, "json_ratio_vs_check": show_json["wall_s"] / check_s,
                      "rss_pct_of_file": 100.0 * max(show["rss_mb"], show_json["rss_mb"]) / size_mb}
    rows.append((f"show {size_mb:.0f} MB", show["wall_s"], f"check {check_s:.2f}s", show["wall_s"] / check_s, size_mb / show["wall_s"], show["rss_mb"], f"{100.0 * show['rss_mb'] / size_mb:.0f}% of file" + ("" if show["exit"] == 0 else " EXIT %d" % show["exit"])))
    rows.append((f"show json {size_mb:.0f} MB", show_json["wall_s"], f"check {check_s:.2f}s", show_json["wall_s"] / check_s, size_mb / show_json["wall_s"], show_json["rss_mb"], f"{100.0 * show_json['rss_mb'] / size_mb:.0f}% of file" + ("" if show_json["exit"] == 0 else " EXIT %d" % show_json["exit"])))
    fence_step(a, report, rows, *largest)
    # The HTML report on the largest session, and its first paint in Chromium.
    html_step(a, report, rows, *largest)
    # otel-genai against an exchange log of the same requests.
    otel_step(a, report, rows)
    # Many small sessions.
    many, n_files = many_files(a)
    # 1 and 2 threads alternate, so that drift in the machine's speed during
    # the step (other tenants, frequency) weighs on both alike.
    one_runs, two_runs = [], []
    for _ in range(max(a.runs, 9)):
        one_runs.append(run([a.bin, "check", many, "-j", "1", "--output-format", "json"]))
        two_runs.append(run([a.bin, "check", many, "-j", "2", "--output-format", "json"]))
    one, two = summarise(one_runs), summarise(two_runs)
    speedup = one["wall_s"] / two["wall_s"]
    report["many"] = {"files": n_files, "threads_1": one, "threads_2": two, "speedup": speedup}
    rows.append((f"check {n_files} files", two["wall_s"], f"1 thread {one['wall_s']:.2f}s", speedup, 0, two["rss_mb"], "speedup"))
    # repro --all on the largest session: one case per planted defect.
    path, size_mb = largest
    # Beside the output folder, not in it: repro refuses to write into the folder of its input.
    rdir = os.path.abspath(a.out).rstrip(os.sep) + "-repro"
    shutil.rmtree(rdir, ignore_errors=True)
    rr = run([a.bin, "repro", path, "--all", "-o", rdir])
    cases = sorted(d for d in os.listdir(rdir)) if os.path.isdir(rdir) else []
    sizes = []
    for d in cases:
        files = [f for f in os.listdir(os.path.join(rdir, d)) if f not in ("expected.json", "case.md")]
        data = [open(os.path.join(rdir, d, f), "rb").read() for f in files]
        sizes.append((sum(x.count(b"\n") for x in data), sum(len(x) for x in data)))
    runner = os.path.join(ROOT, "..", "shared", "cases", "run_cases.py")
    passed = None
    if cases and os.path.exists(runner):
        passed = subprocess.run([sys.executable, runner, "--bin", a.bin, rdir], capture_output=True).returncode == 0
    planted = len(json.load(open(largest[0] + ".truth.json"))["findings"])
    report["repro"] = {"size_mb": round(size_mb, 1), "wall_s": rr[0], "rss_mb": rr[1], "exit": rr[2], "cases": len(cases),
                       "planted": planted, "max_case_lines": max((x[0] for x in sizes), default=0),
                       "max_case_bytes": max((x[1] for x in sizes), default=0), "run_cases_pass": passed}
    rows.append((f"repro --all {size_mb:.0f} MB", rr[0], f"{len(cases)}/{planted} cases, max {report['repro']['max_case_lines']} lines", 0, size_mb / rr[0], rr[1], "pass" if passed else "FAIL"))
    # Hostile shapes (issue 15): time and peak RSS at 1x, 2x and 4x sizes must grow linearly.
    report["hostile"] = {}
    base_n = 2000 if a.quick else 20000
    for shape in ("reused-tool-ids", "torn-lines", "dangling-after-torn", "deep-chain"):
        pts = []
        for k in (1, 2, 4):
            hp = os.path.join(a.out, f"hostile-{shape}-{k}x.jsonl")
            if not os.path.exists(hp):
                hostile(shape, base_n * k, hp)
            mb = os.path.getsize(hp) / 1e6
            r = median_run([a.bin, "check", hp, "--output-format", "sarif", "-o", os.devnull], a.runs)
            pts.append({"x": k, "size_mb": round(mb, 1), "wall_s": r["wall_s"], "rss_mb": r["rss_mb"], "exit": r["exit"]})
        t_ratio = pts[-1]["wall_s"] / max(pts[0]["wall_s"], 1e-3)
        m_ratio = pts[-1]["rss_mb"] / max(pts[0]["rss_mb"], 1e-3)
        report["hostile"][shape] = {"points": pts, "time_4x_over_1x": t_ratio, "rss_4x_over_1x": m_ratio}
        rows.append((f"hostile {shape} 4x", pts[-1]["wall_s"], f"1x {pts[0]['wall_s']:.2f}s {pts[0]['rss_mb']:.0f}MB", t_ratio, pts[-1]["size_mb"] / max(pts[-1]["wall_s"], 1e-3), pts[-1]["rss_mb"], f"rss x{m_ratio:.1f}"))
    shapes_step(a, report, rows)
    big = report["check"][-1]
    dask_step(a, report, rows)
    report["targets"].update({
        "repro_all_cases_small_and_passing": bool(passed) and len(cases) == planted and report["repro"]["max_case_lines"] <= 20,
        "check_2x_faster_than_python": big["ratio_vs_python"] <= 0.5,
        "check_rss_below_25pct": big["rss_pct_of_file"] < 25,
        "fence_1gb_per_s": len(report["fence"] or {}) == 2 and all(f["gb_per_s"] >= 1.0 and f["verdict"] == "append-owned" for f in report["fence"].values()),
        "many_files_speedup_1_7": speedup >= 1.7,
        "exact_truth": all(r["exact_truth"] for r in report["check"]),
        "show_3x_check": max(report["show"]["ratio_vs_check"], report["show"]["json_ratio_vs_check"]) <= 3.0,
        "show_rss_below_25pct": report["show"]["rss_pct_of_file"] < 25,
    })
    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"{'what':<22} {'median s':>9}  {'baseline':<30} {'ratio':>6} {'MB/s':>8} {'peak MB':>8}  note")
    for what, s, base, ratio, mbs, rss, note in rows:
        print(f"{what:<22} {s:>9.3f}  {base:<30} {ratio:>6.2f} {mbs:>8.0f} {rss:>8.1f}  {note}")
    print("seconds per MB at each size: " + ", ".join(f"{x*1000:.2f} ms" for x in per_mb))
    for k, v in report["targets"].items():
        print(f"target {k}: {'met' if v else 'NOT met'}")
    print(f"written: {os.path.join(a.out, 'bench.json')}")


if __name__ == "__main__":
    main()
