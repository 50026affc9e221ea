//! The HTML viewer and the Mermaid output, in a real browser: Debian's headless Chromium.
//!
//! No WebDriver: each test writes a copy of a page with a test script that drives it through
//! DOM events and writes what the page shows into a `<pre id="test-result">` as JSON; Chromium
//! runs it (`--dump-dom`) and the test reads the dumped DOM. Without Chromium (or without
//! `tests/js/node_modules` for Mermaid) a test says it skipped and why, except under `CI=true`,
//! where a missing tool is a failure.

use crate::support::scratch;
use crate::support::{dsim, root, stderr, stdout};
use crate::view::trace_of;
use scenarios::bundled::BUNDLED;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Chromium, or `None` after saying why the test skips (a failure under CI).
pub(crate) fn chromium() -> Option<PathBuf> {
    let fixed = PathBuf::from("/usr/bin/chromium");
    let found = if fixed.exists() {
        Some(fixed)
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("chromium"))
                .find(|p| p.exists())
        })
    };
    if found.is_none() {
        assert!(
            !under_ci(),
            "chromium not found under CI=true: .ci/run must `apt-get install -y chromium`"
        );
        eprintln!("skipped: chromium not found (apt-get install chromium)");
    }
    found
}

/// Chromium's flags for a headless run on a machine with no network: no sandbox (root), no
/// GPU, and none of its background connections (refused here, many at a time).
pub(crate) const HEADLESS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Loads `page` (with `hash`) in headless Chromium and returns the JSON its test script wrote.
pub(crate) fn run_page(browser: &Path, page: &Path, hash: &str) -> serde_json::Value {
    let profile = page.with_extension("profile");
    let _ = std::fs::remove_dir_all(&profile);
    let out = Command::new(browser)
        .args(HEADLESS)
        .args([
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}{hash}", page.display()))
        .output()
        .expect("chromium starts");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let start = dom
        .find("<pre id=\"test-result\">")
        .unwrap_or_else(|| panic!("the test script ran:\n{dom}\n{}", stderr(&out)))
        + "<pre id=\"test-result\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A copy of viewer page `html` with `test` (a script body) run after the viewer's own script.
pub(crate) fn with_test_script(html: &str, test: &str) -> String {
    let at = html.rfind("</body>").expect("a page");
    format!(
        "{}<script>\n(function () {{\nconst out = {{}};\n{test}\nconst pre = document.createElement('pre'); pre.id = 'test-result'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);\n}})();\n</script>\n{}",
        &html[..at],
        &html[at..]
    )
}

// Goal: a student can step through PX-1, filter a node and click a step. Method: drive the
// page's buttons, keyboard, row clicks and node filter in Chromium, recording what it shows.
// Proves stepping forward and back, the step panel (message fields, notes), the node filter,
// and that `#step=N` opens at step N.
#[test]
fn viewer_steps_filters_and_shows_details() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("viewer-steps");
    let trace = trace_of("paxos/lost-accepts", &dir);
    let html = stdout(&dsim(&["view", &trace, "--format", "html"]));
    let test = r#"
const $ = (id) => document.getElementById(id);
const now = () => $('current-step').textContent;
out.opened = now();
$('first').click(); out.first = now();
$('next').click(); $('next').click(); out.twoForward = now();
document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' })); out.key = now();
$('prev').click(); out.back = now();
document.querySelector('#svg g[data-step="14"]').dispatchEvent(new MouseEvent('click', { bubbles: true }));
out.clicked = now();
out.details = $('details').textContent;
out.notes = $('notes').textContent;
out.lost = document.querySelectorAll('#svg g.msg.lost').length;
out.faded = document.querySelectorAll('#svg g.msg.future').length;
const sel = $('filter-node'); sel.value = 'a2'; sel.dispatchEvent(new Event('change'));
const shown = Array.from(document.querySelectorAll('#svg g.msg:not(.hidden)'));
out.shown = shown.length;
out.all = document.querySelectorAll('#svg g.msg').length;
out.shownInvolveA2 = shown.every((g) => g.dataset.from === 'a2' || g.dataset.to === 'a2');
out.noteNodes = Array.from(document.querySelectorAll('#notes .node-notes')).map((e) => e.dataset.node);
out.story = $('story').textContent;
"#;
    let page = dir.join("steps.html");
    std::fs::write(&page, with_test_script(&html, test)).unwrap();
    let opened_plain = run_page(&browser, &page, "");
    assert!(
        opened_plain["opened"]
            .as_str()
            .unwrap_or_default()
            .starts_with("step 14 of 50"),
        "without a #step link it opens at the first lost message (the lesson's point): {opened_plain}"
    );
    let r = run_page(&browser, &page, "#step=27");
    let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
    assert!(s("opened").starts_with("step 27 of 50"), "{r}");
    assert!(s("first").starts_with("step 1 of 50"), "{r}");
    assert!(s("twoForward").starts_with("step 3 of 50"), "{r}");
    assert!(s("key").starts_with("step 4 of 50"), "{r}");
    assert!(s("back").starts_with("step 3 of 50"), "{r}");
    assert!(s("clicked").starts_with("step 14 of 50 · 0.002s"), "{r}");
    assert!(s("details").contains("[relay-1] accept to a2 LOST"), "{r}");
    assert!(
        s("details").contains("Accept: relay-1 \u{2192} a2")
            && s("details").contains("value\"relay-1\""),
        "the message's kind, ends and fields by name: {r}"
    );
    assert!(!s("details").contains("msg."), "no record internals: {r}");
    assert!(
        s("notes").contains("[relay-1] phase 2: accept(n=11, 'relay-1')"),
        "{r}"
    );
    assert!(
        !s("notes").contains("CHOSEN"),
        "notes stop at the step: {r}"
    );
    assert_eq!(r["lost"], 2, "{r}");
    assert!(
        r["faded"].as_u64().unwrap() > 20,
        "later messages are faded: {r}"
    );
    assert!(r["shown"].as_u64().unwrap() > 0, "{r}");
    assert!(r["shown"].as_u64() < r["all"].as_u64(), "{r}");
    assert_eq!(r["shownInvolveA2"], true, "{r}");
    assert_eq!(r["noteNodes"], serde_json::json!(["a2"]), "{r}");
    assert!(
        !s("story").contains("[a1]"),
        "the story follows the filter: {r}"
    );
}

/// PX-1's trace with acceptor `a3` renamed to `name` everywhere (header and records).
fn renamed(trace: &str, name: &str) -> String {
    let text = std::fs::read_to_string(trace).unwrap();
    let quoted = serde_json::to_string(name).unwrap();
    text.replace("\"a3\"", &quoted)
}

const EVIL: &str = "</script><script>alert(1)</script>";

// Goal: untrusted node names render as text. Method: rename a node of PX-1 to
// `</script><script>alert(1)</script>` and a violation, load the page with `alert` trapped.
// Proves no script runs, the name shows verbatim as the lane's text, and the violation is
// highlighted.
#[test]
fn a_script_node_name_renders_as_text() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("viewer-evil");
    let trace = trace_of("paxos/lost-accepts", &dir);
    let mut text = renamed(&trace, EVIL);
    text.push_str(&format!(
        "{}\n",
        serde_json::json!({"step": 50, "time": 252_000_000u64, "kind": "violation",
            "invariant": "agreement", "message": format!("made up by {EVIL}")})
    ));
    let evil = dir.join("evil.jsonl");
    std::fs::write(&evil, text).unwrap();
    let html = stdout(&dsim(&["view", evil.to_str().unwrap(), "--format", "html"]));
    let html = html.replacen(
        "<head>",
        "<head><script>window.alert = function () { document.documentElement.setAttribute('data-alerted', 'yes'); };</script>",
        1,
    );
    let test = r#"
out.alerted = document.documentElement.getAttribute('data-alerted');
out.lanes = Array.from(document.querySelectorAll('#lane-names text')).map((t) => t.textContent);
out.scripts = document.querySelectorAll('script').length;
out.banner = document.getElementById('violation').textContent;
out.bannerShown = !document.getElementById('violation').hidden;
out.violationRows = document.querySelectorAll('#svg rect.row-band.violation').length;
"#;
    let page = dir.join("evil.html");
    std::fs::write(&page, with_test_script(&html, test)).unwrap();
    let r = run_page(&browser, &page, "");
    assert_eq!(r["alerted"], serde_json::Value::Null, "{r}");
    assert_eq!(r["lanes"][4], EVIL, "{r}");
    assert_eq!(r["scripts"], 4, "trap, data, viewer, test: {r}");
    assert_eq!(r["bannerShown"], true, "{r}");
    assert!(
        r["banner"]
            .as_str()
            .unwrap()
            .contains("VIOLATION of agreement at step 50"),
        "{r}"
    );
    assert_eq!(r["violationRows"], 1, "{r}");
}

// Goal: the history view shows a failed linearizability check as an engineer reads it in
// Porcupine, and a hostile client name stays text. Method: `dsim view --format html` of
// `raft/kv-stale-read`'s trace with client `c3` renamed to a `</script>` attack, loaded in
// Chromium with `alert` trapped; read the panel, click the red bar. Proves: one row per
// client, a bar per operation, the stale read darker red and the write it missed red, the
// verdict in words, the click going to the read's step, and no script run.
#[test]
fn the_history_view_shows_the_stale_read_window() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("viewer-history");
    let trace = trace_of("raft/kv-stale-read", &dir);
    let text = std::fs::read_to_string(&trace)
        .unwrap()
        .replace("\"c3\"", &serde_json::to_string(EVIL).unwrap());
    let evil = dir.join("evil-kv.jsonl");
    std::fs::write(&evil, text).unwrap();
    let html = stdout(&dsim(&["view", evil.to_str().unwrap(), "--format", "html"]));
    let html = html.replacen(
        "<head>",
        "<head><script>window.alert = function () { document.documentElement.setAttribute('data-alerted', 'yes'); };</script>",
        1,
    );
    let test = r#"
const $ = (id) => document.getElementById(id);
out.alerted = document.documentElement.getAttribute('data-alerted');
out.shown = !$('history-box').hidden;
out.verdict = $('history-verdict').textContent;
out.failed = $('history-verdict').classList.contains('failed');
out.clients = Array.from(document.querySelectorAll('#history text.client')).map((t) => t.textContent);
out.bars = document.querySelectorAll('#history g.op').length;
out.culprit = Array.from(document.querySelectorAll('#history g.op.culprit > text')).map((t) => t.textContent);
out.window = Array.from(document.querySelectorAll('#history g.op.window:not(.culprit) > text')).map((t) => t.textContent);
const culprit = document.querySelector('#history g.op.culprit');
culprit.dispatchEvent(new MouseEvent('click', { bubbles: true }));
out.step = $('current-step').textContent;
out.wanted = culprit.dataset.step;
out.current = culprit.classList.contains('current');
"#;
    let page = dir.join("history.html");
    std::fs::write(&page, with_test_script(&html, test)).unwrap();
    let r = run_page(&browser, &page, "");
    assert_eq!(r["alerted"], serde_json::Value::Null, "{r}");
    assert_eq!(r["shown"], true, "{r}");
    assert_eq!(r["failed"], true, "{r}");
    assert!(
        r["verdict"]
            .as_str()
            .unwrap()
            .contains("get(x) by </script><script>alert(1)</script> returned 1 after put(x, 2) by c2 had returned"),
        "{r}"
    );
    assert_eq!(r["clients"], serde_json::json!(["c1", "c2", EVIL]), "{r}");
    assert_eq!(r["bars"], 3, "{r}");
    assert_eq!(
        r["culprit"],
        serde_json::json!(["get(x) \u{2192} returned 1"]),
        "{r}"
    );
    assert_eq!(
        r["window"],
        serde_json::json!(["put(x, 2) \u{2192} returned"]),
        "{r}"
    );
    let wanted = r["wanted"].as_str().unwrap();
    assert!(
        r["step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("step {wanted} of")),
        "{r}"
    );
    assert_eq!(r["current"], true, "{r}");
}

// Goal: Mermaid itself accepts dsim's Mermaid output. Method: load the npm `mermaid` package
// in Chromium and `mermaid.parse` (which throws on bad syntax) every bundled scenario's
// diagram, the hostile-name one, and a broken control text. Proves every diagram parses and
// that the harness does report a parse error.
#[test]
fn mermaid_parses_every_course_diagram() {
    let Some(browser) = chromium() else { return };
    let lib = root().join("tests/js/node_modules/mermaid/dist/mermaid.min.js");
    if !lib.exists() {
        assert!(
            !under_ci(),
            "{} missing under CI=true: .ci/run must `npm ci --prefix tests/js`",
            lib.display()
        );
        eprintln!(
            "skipped: {} missing (npm ci --prefix tests/js)",
            lib.display()
        );
        return;
    }
    let dir = scratch("viewer-mermaid");
    let mut diagrams = serde_json::Map::new();
    for b in BUNDLED {
        let trace = trace_of(b.name, &dir);
        for lang in ["en", "es"] {
            let out = dsim(&["view", &trace, "--format", "mermaid", "--lang", lang]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            diagrams.insert(format!("{} {lang}", b.name), stdout(&out).into());
        }
    }
    let trace = trace_of("paxos/lost-accepts", &dir);
    let evil = dir.join("evil.jsonl");
    std::fs::write(&evil, renamed(&trace, "a\"3;#<b>\n%%{init}%%")).unwrap();
    let out = dsim(&["view", evil.to_str().unwrap(), "--format", "mermaid"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    diagrams.insert("hostile names".into(), stdout(&out).into());
    diagrams.insert("control".into(), "sequenceDiagram\n    A->>: ->>\n".into());
    let data = serde_json::Value::Object(diagrams)
        .to_string()
        .replace('<', "\\u003c");
    let page = format!(
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><script src="file://{}"></script></head><body>
<script type="application/json" id="d">{data}</script>
<script>
(async function () {{
  const res = {{}};
  try {{
    mermaid.initialize({{ startOnLoad: false }});
    const texts = JSON.parse(document.getElementById('d').textContent);
    for (const name of Object.keys(texts)) {{
      try {{ await mermaid.parse(texts[name]); res[name] = 'ok'; }}
      catch (e) {{ res[name] = 'error: ' + String(e && e.message || e); }}
    }}
  }} catch (e) {{ res.harness = String(e); }}
  const pre = document.createElement('pre'); pre.id = 'test-result'; pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
}})();
</script></body></html>"#,
        lib.display()
    );
    let path = dir.join("mermaid.html");
    std::fs::write(&path, page).unwrap();
    let r = run_page(&browser, &path, "");
    let results = r.as_object().unwrap();
    assert!(results.get("harness").is_none(), "{r}");
    assert!(
        results["control"].as_str().unwrap().starts_with("error"),
        "a broken diagram is reported: {r}"
    );
    for (name, verdict) in results {
        if name != "control" {
            assert_eq!(verdict, "ok", "{name}: {r}");
        }
    }
    assert_eq!(results.len(), BUNDLED.len() * 2 + 2, "{r}");
}
