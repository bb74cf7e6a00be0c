"""Generators for `bench.py --only kinds`: one input of each kind issue 35 measures, at a
given size. Every generator is seeded by its arguments alone (the same call writes the same
bytes) and writes clean recordings: a conversation that grows by appending, so that what is
measured is reading and checking, not reporting.

  exchange_log(path, mb, large)   claude-trace style JSONL: {"request": {path, headers, body},
                                  "response": {status, body}}; small requests (short turns of
                                  an OpenAI Chat conversation, 30 requests each) or large ones
                                  (an Anthropic Messages conversation with a 24 KB system prompt
                                  and 12 tools, 10 requests each)
  har(path, mb)                   an HTTP Archive (pretty-printed as browsers save it) of Chat
                                  requests, conversations of 20 requests
  large_body(path, mb)            one OpenAI Chat request body of that size
  diff_pair(a, b, mb)             two such bodies: b is a with two messages changed and ten
                                  appended
  proxy_logs(folder)              10 claude-trace logs of 8 to 100 requests each
"""
import json
import os
import random

WORDS = ("the session file holds every request the agent sent with its tools and the system "
         "prompt that came before it and each tool call waits for its result").split()


def _text(rng, n_words):
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def _write_until(path, mb, lines_of):
    """Writes the lines of conversation 0, 1, 2, … until the file holds mb MB."""
    target = int(mb * 1_000_000)
    with open(path, "w", encoding="utf-8") as f:
        c = 0
        while f.tell() < target:
            for line in lines_of(c):
                f.write(line + "\n")
            c += 1


def _chat_conversation(c, turns, words):
    """The growing message lists of one Chat conversation: turns requests."""
    rng = random.Random(c)
    msgs = [{"role": "system", "content": f"You are agent {c}. " + _text(rng, 30)}]
    out = []
    for t in range(turns):
        msgs.append({"role": "user", "content": f"[c{c} t{t}] " + _text(rng, words)})
        out.append([dict(m) for m in msgs])
        msgs.append({"role": "assistant", "content": _text(rng, words)})
    return out


def _anthropic_conversation(c, turns, session):
    rng = random.Random(1000 + c)
    system = [{"type": "text", "text": "You are Claude Code. " + _text(rng, 4000)}]
    tools = [{"name": f"tool_{k}", "description": _text(rng, 60),
              "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}} for k in range(12)]
    msgs, out = [], []
    for t in range(turns):
        msgs.append({"role": "user", "content": [{"type": "text", "text": f"[c{c} t{t}] " + _text(rng, 300)}]})
        out.append({"model": "claude-sonnet-4-5", "max_tokens": 8192, "system": system, "tools": tools,
                    "metadata": {"user_id": json.dumps({"session_id": session})},
                    "messages": [dict(m) for m in msgs]})
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": _text(rng, 300)}]})
    return out


def _exchange_line(path, body, session, rid):
    return json.dumps({"request": {"timestamp": 1764662505.0, "method": "POST", "url": "https://api.example.com" + path,
                                   "headers": {"session_id": session}, "body": body},
                       "response": {"status": 200, "body": {"id": rid}}}, separators=(",", ":"))


def exchange_log(path, mb, large=False):
    if large:
        def lines(c):
            s = f"00000000-0000-4000-8000-{c:012d}"
            return [_exchange_line("/v1/messages", b, s, f"msg_{c}_{i}")
                    for i, b in enumerate(_anthropic_conversation(c, 10, s))]
    else:
        def lines(c):
            return [_exchange_line("/v1/chat/completions", {"model": "gpt-4o-mini", "messages": m}, f"s{c}", f"chatcmpl-{c}-{i}")
                    for i, m in enumerate(_chat_conversation(c, 30, 12))]
    _write_until(path, mb, lines)


def har(path, mb):
    """A HAR of Chat requests; entries pretty-printed, as browsers save them."""
    target = int(mb * 1_000_000)
    entries, size, c = [], 0, 0
    while size < target:
        for i, m in enumerate(_chat_conversation(c, 20, 20)):
            text = json.dumps({"model": "gpt-4o-mini", "messages": m})
            e = {"startedDateTime": "2026-11-20T09:00:00.000Z", "time": 812,
                 "request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "httpVersion": "HTTP/2",
                             "headers": [{"name": "content-type", "value": "application/json"}], "queryString": [], "cookies": [],
                             "headersSize": -1, "bodySize": len(text),
                             "postData": {"mimeType": "application/json", "text": text}},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "headers": [], "cookies": [],
                              "content": {"size": 60, "mimeType": "application/json",
                                          "text": json.dumps({"id": f"chatcmpl-{c}-{i}", "object": "chat.completion"})},
                              "redirectURL": "", "headersSize": -1, "bodySize": 60},
                 "cache": {}, "timings": {"send": 1, "wait": 800, "receive": 11}}
            entries.append(e)
            size += len(text) + 700
        c += 1
    doc = {"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "pages": [], "entries": entries}}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)


def _large_messages(mb, seed):
    rng = random.Random(seed)
    msgs = [{"role": "system", "content": "You are a careful agent. " + _text(rng, 200)}]
    size, t = 0, 0
    while size < mb * 1_000_000:
        if t % 3 == 1:
            cid = f"call_{t}"
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/f{t}.rs"})}}]})
            msgs.append({"role": "tool", "tool_call_id": cid, "content": _text(rng, 400)})
        else:
            msgs.append({"role": "user" if t % 3 == 0 else "assistant", "content": f"[t{t}] " + _text(rng, 200)})
        size += len(json.dumps(msgs[-1]))
        t += 1
    if msgs[-1]["role"] != "user":
        msgs.append({"role": "user", "content": "go on"})
    return msgs


def large_body(path, mb):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"model": "gpt-4o", "messages": _large_messages(mb, 5)}, f)


def diff_pair(a, b, mb):
    msgs = _large_messages(mb, 6)
    with open(a, "w", encoding="utf-8") as f:
        json.dump({"model": "gpt-4o", "messages": msgs}, f)
    changed = [dict(m) for m in msgs]
    for k in (len(changed) // 3, 2 * len(changed) // 3):
        if isinstance(changed[k].get("content"), str):
            changed[k]["content"] = changed[k]["content"].replace("agent", "model", 3)
    rng = random.Random(7)
    for t in range(10):
        changed.append({"role": "assistant" if t % 2 else "user", "content": _text(rng, 50)})
    with open(b, "w", encoding="utf-8") as f:
        json.dump({"model": "gpt-4o", "messages": changed}, f)


def proxy_logs(folder):
    """10 claude-trace logs (Anthropic Messages requests) of 8 to 100 requests each."""
    os.makedirs(folder, exist_ok=True)
    for k, n in enumerate((8, 12, 20, 30, 45, 60, 75, 85, 95, 100)):
        s = f"00000000-0000-4000-9000-{k:012d}"
        rng = random.Random(k)
        system = [{"type": "text", "text": "You are Claude Code. " + _text(rng, 1500)}]
        tools = [{"name": f"tool_{j}", "description": _text(rng, 40), "input_schema": {"type": "object"}} for j in range(10)]
        msgs = []
        with open(os.path.join(folder, f"log-{k:02d}.jsonl"), "w", encoding="utf-8") as f:
            for t in range(n):
                msgs.append({"role": "user", "content": [{"type": "text", "text": f"[{k} {t}] " + _text(rng, 60)}]})
                body = {"model": "claude-sonnet-4-5", "max_tokens": 8192, "system": system, "tools": tools,
                        "metadata": {"user_id": json.dumps({"session_id": s})}, "messages": [dict(m) for m in msgs]}
                f.write(_exchange_line("/v1/messages", body, s, f"msg_{k}_{t}") + "\n")
                msgs.append({"role": "assistant", "content": [{"type": "text", "text": _text(rng, 80)}]})
