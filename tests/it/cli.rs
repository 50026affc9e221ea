//! The binary's behaviour as a user meets it.

use crate::support::{dsim, stderr, stdout};

/// `dsim run` tells the story and reports each expectation; `--json` is machine-readable.
#[test]
fn run_prints_a_story_and_json_parses() {
    let out = dsim(&["run", "demo/token-ring"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("completes a lap"), "{text}");
    assert!(text.contains("ok   expect Laps(10)"), "{text}");
    let json = dsim(&["run", "demo/token-ring", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["passed"], true);
    assert_eq!(v["seed"], 0);
    assert!(v["expectations"][0]["held"].as_bool().unwrap());
}

/// A failed expectation exits 1 and says which one and how to replay.
#[test]
fn a_failed_expectation_exits_one() {
    let dir = crate::support::scratch("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ring.ron");
    let text = scenarios::bundled::find("demo/token-ring")
        .unwrap()
        .source
        .replace("Laps(10)", "Laps(10000)");
    std::fs::write(&file, text).unwrap();
    let out = dsim(&["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("FAIL expect Laps(10000)"), "{text}");
    assert!(text.contains("replay: dsim run"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_kinds_names_a_protocols_messages() {
    let out = dsim(&["list", "--kinds", "token-ring"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("Token"));
    assert_eq!(dsim(&["list", "--kinds", "nope"]).status.code(), Some(2));
}

/// `--lang es` tells the story in the course's Spanish.
#[test]
fn spanish_story() {
    let out = stdout(&dsim(&["run", "demo/token-ring", "--lang", "es"]));
    assert!(out.contains("completa una vuelta"), "{out}");
    assert!(out.contains("CAE"), "{out}");
}

/// `--trace` writes a trace whose header carries the scenario and the seed.
#[test]
fn trace_file_carries_its_scenario() {
    let dir = crate::support::scratch("trace");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.jsonl");
    let out = dsim(&[
        "run",
        "demo/token-ring",
        "--seed",
        "5",
        "--trace",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&path).unwrap();
    let header = traces::parse_header(&text).unwrap();
    assert_eq!(header.seed, 5);
    assert_eq!(header.protocol, "token-ring");
    assert!(header.scenario.contains("Scenario("));
    assert!(text.lines().count() > 10);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Goal: a panicking actor is a bug report, not a crash. Method: the token ring's deliberate
/// panic knob. Proves: exit 3, the seed and the replay command are printed.
#[test]
fn a_panicking_actor_exits_three_with_the_replay_command() {
    let dir = crate::support::scratch("panic");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ring.ron");
    let text = scenarios::bundled::find("demo/token-ring")
        .unwrap()
        .source
        .replace("tokens: 2)", "tokens: 2, panic_at_hops: 7)");
    std::fs::write(&file, text).unwrap();
    let out = dsim(&["run", file.to_str().unwrap(), "--seed", "4"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("seed: 4"), "{err}");
    assert!(err.contains("replay: dsim run"), "{err}");
    assert!(err.contains("a token reached 7 hops"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `RUST_LOG=dsim=debug` prints the kernel's steps stamped with virtual time, not the wall
/// clock, and plain (no colour codes) when not on a terminal.
#[test]
fn diagnostics_are_stamped_with_virtual_time() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(["run", "demo/token-ring"])
        .env("RUST_LOG", "dsim=debug")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(err.contains("t=0.000000s"), "{err}");
    assert!(err.contains("deliver"), "{err}");
    assert!(err.lines().any(|l| l.starts_with("t=0.0")), "{err}");
    assert!(!err.contains('\u{1b}'), "no ANSI codes when piped");
}

/// Goal: writing a trace never replaces what the path points at. Method: `--trace` to a
/// symbolic link. Proves: the link stays a link and its target gets the trace (the same rule
/// keeps `--trace /dev/null` from replacing the device with a regular file, which a rename did).
#[test]
fn a_trace_written_through_a_link_keeps_the_link() {
    let dir = crate::support::scratch("link");
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("real.jsonl");
    std::fs::write(&target, "old").unwrap();
    let link = dir.join("link.jsonl");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = dsim(&["run", "demo/token-ring", "--trace", link.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.starts_with("{\"format\":1"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long story shows its beginning and its end with a marker between; `--full` shows all. A
/// livelock's rounds fold whole: 248 rounds of duelling proposers read as the first, a count
/// and the last.
#[test]
fn long_stories_are_trimmed_unless_full() {
    let short = stdout(&dsim(&["run", "ring/dynamic-split"]));
    let full = stdout(&dsim(&["run", "ring/dynamic-split", "--full"]));
    assert!(
        short.contains("more lines; the whole story with --full"),
        "{short}"
    );
    assert!(short.lines().count() < 150);
    assert!(full.lines().count() > short.lines().count() + 200);
    assert!(!full.contains("more lines; the whole story"));
    let livelock = stdout(&dsim(&["run", "paxos/dueling-proposers-fixed-backoff"]));
    assert!(
        livelock.contains("... 247 more rounds like this one, until 1.988s ..."),
        "{livelock}"
    );
    assert!(livelock.lines().count() < 40, "{livelock}");
    let last = |s: &str| {
        s.lines()
            .rev()
            .find(|l| l.contains("s  ["))
            .map(str::to_string)
    };
    assert_eq!(last(&short), last(&full), "the end of the story is kept");
}

// Goal: output that cannot be written never panics and never passes for written. Method: every
// printing command with standard output on /dev/full; then a long story into a pipe whose
// reader goes away after one line. Proves: exit 2 with a one-line message for a full disk, and
// a quiet 141 (a shell's code for SIGPIPE) for a closed pipe, never a panic.
#[test]
fn unwritable_output_is_an_error_and_a_closed_pipe_a_quiet_stop() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = crate::support::scratch("full");
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.jsonl");
    let trace = trace.to_str().unwrap();
    assert_eq!(
        dsim(&["run", "paxos/lost-accepts", "--trace", trace])
            .status
            .code(),
        Some(0)
    );
    if std::path::Path::new("/dev/full").exists() {
        let commands: &[&[&str]] = &[
            &["list"],
            &["validate", "paxos/lost-accepts"],
            &["run", "paxos/lost-accepts"],
            &["sweep", "raft/split-votes", "--seeds", "0..3"],
            &["ring", "lesson"],
            &["view", trace],
            &["check", trace],
            &["replay", trace],
            &["diff", trace, trace],
        ];
        for args in commands {
            let full = std::fs::File::create("/dev/full").unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_dsim"))
                .args(*args)
                .stdout(full)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains("cannot write to standard output"),
                "{args:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
    // The output must be far larger than a pipe's buffer (64 KiB), or the write never fails.
    let whole = dsim(&["run", "raft/split-votes", "--full", "-v"]);
    assert!(
        whole.stdout.len() > 3 * 65_536,
        "{} bytes",
        whole.stdout.len()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(["run", "raft/split-votes", "--full", "-v"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("raft/split-votes"), "{first}");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

// Goal: a write never loses a file, never leaves a temporary one, and exit codes tell the truth.
// Method: two runs writing one trace at once; a 0600 target; a read-only target; `view T -o T`.
// Proves: both racing runs exit 0 and the target holds one complete trace with no temporary
// file left; permissions are kept; a read-only target and the command's own input are refused
// (exit 2) and left as they were.
#[cfg(unix)]
#[test]
fn writes_are_whole_unique_and_truthful() {
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command;
    let dir = crate::support::scratch("writes");
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("t.jsonl");
    let t = target.to_str().unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_dsim"))
            .args(["run", "ring/join-under-load", "--trace", t])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (spawn(), spawn());
    assert_eq!(a.wait().unwrap().code(), Some(0));
    assert_eq!(b.wait().unwrap().code(), Some(0));
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["t.jsonl"], "no temporary file is left");
    assert_eq!(
        dsim(&["check", t]).status.code(),
        Some(0),
        "one complete trace"
    );
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(
        dsim(&["run", "paxos/lost-accepts", "--trace", t])
            .status
            .code(),
        Some(0)
    );
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "permissions kept");
    let before = std::fs::read(&target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = dsim(&["run", "raft/leader-crash", "--trace", t]);
    assert_eq!(out.status.code(), Some(2), "a read-only target is refused");
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&target).unwrap(), before);
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = dsim(&["view", t, "-o", t]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "the command's own input is refused"
    );
    assert!(stderr(&out).contains("own input"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&target).unwrap(), before);
    std::fs::remove_dir_all(&dir).ok();
}

// Goal: a run that spins without time advancing is reported as a livelock, not passed. Method:
// a one-node token ring (the node hands the token to itself at zero latency, forever).
// Proves: the run stops at the per-instant step limit, says "livelock", and fails (exit 1).
#[test]
fn a_run_that_never_advances_time_is_a_livelock() {
    let dir = crate::support::scratch("livelock");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("one.ron");
    std::fs::write(
        &file,
        "Scenario(description: \"a token to oneself\", protocol: \"token-ring\", \
         config: (nodes: [\"n0\"]))",
    )
    .unwrap();
    let out = dsim(&["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("livelock"), "{}", stdout(&out));
    std::fs::remove_dir_all(&dir).ok();
}

// Goal: a trace that no run could write is refused. Method: a trace with one send line copied.
// Proves: `check` exits 2 naming the line of the second send.
#[test]
fn a_trace_with_a_send_twice_is_refused() {
    let dir = crate::support::scratch("twice");
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.jsonl");
    let t = trace.to_str().unwrap();
    assert_eq!(
        dsim(&["run", "paxos/lost-accepts", "--trace", t])
            .status
            .code(),
        Some(0)
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let (n, send) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("\"kind\":\"send\""))
        .unwrap();
    let doubled = text.replacen(send, &format!("{send}\n{send}"), 1);
    std::fs::write(&trace, doubled).unwrap();
    let out = dsim(&["check", t]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!("t.jsonl:{}: message", n + 2)),
        "{said}"
    );
    assert!(said.contains("sent twice"), "{said}");
    std::fs::remove_dir_all(&dir).ok();
}

// Goal: a file that is not UTF-8 (a Latin-1 `é`) is refused where it breaks. Method: such a
// scenario through `validate` and such a trace through `view`. Proves: exit 2 with the file,
// line and column of the first bad byte.
#[test]
fn files_that_are_not_utf8_are_refused_at_their_bad_byte() {
    let dir = crate::support::scratch("latin1");
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("latin1.ron");
    std::fs::write(&scenario, b"Scenario(\n  description: \"caf\xe9\",\n)\n").unwrap();
    let out = dsim(&["validate", scenario.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("latin1.ron:2:20: not UTF-8 text (byte 0xE9)"),
        "{}",
        stderr(&out)
    );
    let trace = dir.join("t.jsonl");
    std::fs::write(&trace, b"{\"format\":1}\n\xff\n").unwrap();
    let out = dsim(&["view", trace.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("t.jsonl:2:1: not UTF-8 text (byte 0xFF)"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}

// Goal: a problem a --set made is told as one. Method: `run` with a --set whose value does not
// parse. Proves: exit 2, the problem located in the changed text, and a note saying the lines
// shown are the file as the --set changed it (they are not in the file on disk).
#[test]
fn a_problem_made_by_set_says_so() {
    let out = dsim(&["run", "paxos/lost-accepts", "--set", "phase_timeout_ms=abc"]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("phase_timeout_ms: abc"), "{said}");
    assert!(
        said.contains("--set 'phase_timeout_ms=abc' changed it"),
        "{said}"
    );
}
