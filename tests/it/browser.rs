//! A small Chrome DevTools Protocol client for the HTML report's tests: it
//! starts headless Chromium (Debian's `chromium`, which `.ci/run` installs)
//! with a private profile and no background networking, opens one page and
//! evaluates JavaScript in it, recording every network request the page
//! makes. `CTXLINT_CHROMIUM` names another binary.
//!
//! Protocol: <https://chromedevtools.github.io/devtools-protocol/> (Target,
//! Page, Network, Runtime domains), over the browser's WebSocket endpoint
//! that `--remote-debugging-port=0` writes to `DevToolsActivePort`.

use crate::support::under_ci;
use serde_json::{Value, json};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

type Socket = tungstenite::WebSocket<TcpStream>;

/// A running headless Chromium with one page attached.
pub struct Browser {
    child: Child,
    ws: Socket,
    session: String,
    next: u64,
    /// Every URL the page requested (`Network.requestWillBeSent`).
    pub requests: Vec<String>,
    /// Events seen, by method name, since the last [`Browser::navigate`].
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

/// The Chromium binary, if any.
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CTXLINT_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

impl Browser {
    /// Starts Chromium, or returns `None` with a loud notice when it is not
    /// installed (under `CI` that fails the test: `.ci/run` installs it).
    pub fn launch() -> Option<Browser> {
        let Some(bin) = chromium() else {
            assert!(!under_ci(), "chromium is not installed: .ci/run installs Debian's chromium package");
            eprintln!(
                "\n*** SKIPPED: chromium is not installed (apt-get install chromium) — the HTML report was not tested in a browser. ***\n"
            );
            return None;
        };
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(&bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--remote-debugging-port=0",
                "--window-size=1400,1000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
        let port_file = profile.path().join("DevToolsActivePort");
        let started = Instant::now();
        let (port, path) = loop {
            if let Ok(s) = std::fs::read_to_string(&port_file) {
                let mut l = s.lines();
                if let (Some(port), Some(path)) = (l.next(), l.next()) {
                    break (port.to_string(), path.to_string());
                }
            }
            assert!(started.elapsed() < Duration::from_secs(60), "chromium did not open its debugging port");
            std::thread::sleep(Duration::from_millis(50));
        };
        let stream = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let (ws, _) = tungstenite::client(format!("ws://127.0.0.1:{port}{path}"), stream).unwrap();
        let mut b = Browser {
            child,
            ws,
            session: String::new(),
            next: 0,
            requests: Vec::new(),
            events: Vec::new(),
            _profile: profile,
        };
        let target = b.call(None, "Target.createTarget", json!({"url": "about:blank"}));
        let id = target["targetId"].as_str().unwrap().to_string();
        let attached = b.call(None, "Target.attachToTarget", json!({"targetId": id, "flatten": true}));
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        b.page("Page.enable", json!({}));
        b.page("Network.enable", json!({}));
        b.page("Runtime.enable", json!({}));
        Some(b)
    }

    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(tungstenite::Message::text(msg.to_string())).unwrap();
        loop {
            let v = self.read();
            if v["id"].as_u64() == Some(id) {
                assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
        }
    }

    fn read(&mut self) -> Value {
        loop {
            match self.ws.read().expect("devtools connection") {
                tungstenite::Message::Text(t) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    if v.get("method").is_some() {
                        if v["method"] == "Network.requestWillBeSent" {
                            self.requests.push(v["params"]["request"]["url"].as_str().unwrap_or("").to_string());
                        }
                        self.events.push(v.clone());
                    }
                    return v;
                }
                tungstenite::Message::Close(_) => panic!("devtools connection closed"),
                _ => {}
            }
        }
    }

    fn page(&mut self, method: &str, params: Value) -> Value {
        let s = self.session.clone();
        self.call(Some(&s), method, params)
    }

    /// Opens `file` (with `#fragment`, if any) and waits for its load event
    /// (or, when only the fragment changed, for the redraw).
    pub fn navigate(&mut self, file: &Path, fragment: &str) {
        self.events.clear();
        let url = format!("file://{}{}", file.display(), fragment);
        let nav = self.page("Page.navigate", json!({"url": url}));
        if nav.get("loaderId").is_none() {
            // Only the fragment changed: a same-document navigation, no load
            // event; the page redraws on `hashchange`.
            self.eval("new Promise(r => setTimeout(r, 100)).then(() => 1)");
            return;
        }
        let started = Instant::now();
        while !self.events.iter().any(|e| e["method"] == "Page.loadEventFired") {
            assert!(started.elapsed() < Duration::from_secs(60), "the page did not load");
            self.read();
        }
    }

    /// Evaluates `js` in the page (promises awaited) and returns its value.
    pub fn eval(&mut self, js: &str) -> Value {
        let r = self.page("Runtime.evaluate", json!({"expression": js, "returnByValue": true, "awaitPromise": true}));
        assert!(r.get("exceptionDetails").is_none(), "{js}: {}", r["exceptionDetails"]);
        r["result"]["value"].clone()
    }

    /// Emulates the reader's colour scheme (`prefers-color-scheme`: "light" or "dark").
    pub fn color_scheme(&mut self, scheme: &str) {
        self.page(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
        );
    }

    /// Exceptions thrown by the page's own scripts since it was opened.
    pub fn exceptions(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["method"] == "Runtime.exceptionThrown")
            .map(|e| e["params"]["exceptionDetails"].to_string())
            .collect()
    }
}

/// axe-core's `axe.min.js` (the accessibility engine from npm, which
/// `.ci/run` installs into `target/axe`; `CTXLINT_AXE` names another copy),
/// or `None` with a loud notice (under `CI` that fails the test).
pub fn axe() -> Option<String> {
    let path = std::env::var_os("CTXLINT_AXE").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/axe/node_modules/axe-core/axe.min.js")
    });
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) => {
            assert!(!under_ci(), "{}: {e}: .ci/run installs axe-core from npm", path.display());
            eprintln!(
                "\n*** SKIPPED: {} is missing (npm install --prefix target/axe axe-core) — the HTML report was not checked for accessibility. ***\n",
                path.display()
            );
            None
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.ws.close(None);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
