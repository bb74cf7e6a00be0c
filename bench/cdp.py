"""A minimal Chrome DevTools Protocol client on the standard library, for the
benchmark's first-paint measurement of the HTML report (bench.py --only html).

It starts headless Chromium (Debian's `chromium`, or $CTXLINT_CHROMIUM) with a
private profile and no background networking, attaches to one page over the
browser's WebSocket endpoint (RFC 6455 framing, client frames masked), and
sends commands. Protocol: https://chromedevtools.github.io/devtools-protocol/
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--remote-debugging-port=0", "--window-size=1400,1000",
]


def chromium():
    """The Chromium binary, or None."""
    env = os.environ.get("CTXLINT_CHROMIUM")
    if env:
        return env
    for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"):
        if os.path.exists(p):
            return p
    return None


class Browser:
    def __init__(self, binary):
        self.profile = tempfile.mkdtemp(prefix="ctxlint-cdp-")
        self.proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        t0 = time.time()
        while True:
            try:
                with open(port_file) as f:
                    lines = f.read().split("\n")
                if len(lines) >= 2 and lines[1]:
                    port, path = lines[0], lines[1]
                    break
            except OSError:
                pass
            if time.time() - t0 > 60:
                raise RuntimeError("chromium did not open its debugging port")
            time.sleep(0.05)
        self.sock = socket.create_connection(("127.0.0.1", int(port)), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("websocket handshake refused: " + head.decode(errors="replace"))
        self.next = 0
        self.session = None
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")

    def _recv(self):
        b = self.sock.recv(1 << 20)
        if not b:
            raise RuntimeError("devtools connection closed")
        return b

    def _read_exact(self, n):
        while len(self.buf) < n:
            self.buf += self._recv()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send(self, text, opcode=1):
        data = text.encode() if isinstance(text, str) else text
        n = len(data)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _message(self):
        parts = []
        while True:
            b0, b1 = self._read_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read_exact(8))[0]
            payload = self._read_exact(n)
            op = b0 & 0x0F
            if op == 9:
                self._send(payload, opcode=10)
                continue
            if op == 8:
                raise RuntimeError("devtools connection closed")
            if op in (0, 1, 2):
                parts.append(payload)
                if b0 & 0x80:
                    return json.loads(b"".join(parts))

    def call(self, method, params=None, session=True):
        self.next += 1
        msg = {"id": self.next, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self._send(json.dumps(msg))
        while True:
            v = self._message()
            if v.get("id") == self.next:
                if "error" in v:
                    raise RuntimeError(f"{method}: {v['error']}")
                return v.get("result", {})
            if "method" in v:
                self.events.append(v)

    def wait_event(self, method, timeout=120):
        t0 = time.time()
        for i, e in enumerate(self.events):
            if e["method"] == method:
                del self.events[: i + 1]
                return e
        self.events.clear()
        while time.time() - t0 < timeout:
            v = self._message()
            if v.get("method") == method:
                return v
        raise RuntimeError(f"no {method} within {timeout} s")

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, url, out, width=1400, height=1000, then=None):
        """Opens url at a width x height CSS-pixel viewport, waits for its load
        event and a frame, evaluates `then` (JavaScript, e.g. a scroll) if given,
        and writes a PNG of the viewport to out."""
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        self.eval("new Promise(r => requestAnimationFrame(() => setTimeout(r, 100)))")
        self.eval(then or "window.scrollTo(0, 0)")
        self.eval("new Promise(r => requestAnimationFrame(() => setTimeout(r, 100)))")
        png = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(out, "wb") as f:
            f.write(base64.b64decode(png))

    def close(self):
        try:
            self.proc.kill()
            self.proc.wait(10)
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


def first_paint(binary, url):
    """Opens url in a fresh headless Chromium; returns a dict of milliseconds from
    the navigation's start: first_contentful_paint (the Paint Timing API's entry),
    dom_content_loaded, load, and rendered_ms (the report's first `ctxlint-rendered`
    performance mark: its page drawn), plus wall_ms from Page.navigate to the load event."""
    b = Browser(binary)
    try:
        t0 = time.perf_counter()
        b.call("Page.navigate", {"url": url})
        b.wait_event("Page.loadEventFired")
        wall = (time.perf_counter() - t0) * 1000
        # The paint entry is queued after the frame that painted; give it a frame.
        v = b.eval("""new Promise(r => requestAnimationFrame(() => setTimeout(() => {
            const p = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
            const n = performance.getEntriesByType('navigation')[0];
            r({fcp: p ? p.startTime : null, dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd,
               rendered: (performance.getEntriesByName('ctxlint-rendered')[0] || {}).startTime ?? null,
               bars: document.querySelectorAll('#timeline .bar').length});
        }, 50)))""")
        return {"first_contentful_paint_ms": v["fcp"], "dom_content_loaded_ms": v["dcl"], "load_ms": v["load"],
                "wall_ms": wall, "rendered_ms": v["rendered"], "timeline_bars": v["bars"]}
    finally:
        b.close()
