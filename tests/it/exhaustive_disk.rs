//! Breadth first with its frontier on disk (`--frontier disk`, `--checkpoint`, `--resume`): the
//! same states, counts and paths as in memory, at any thread count; a search stopped after a
//! level and resumed ends where an uninterrupted one does; Ctrl-C stops a search that says how
//! to go on; what cannot be done is refused.

use crate::support::{dsim, scratch, stderr, stdout};
use scenarios::exhaustive::{Outcome, Settings};
use scenarios::registry::LoadedScenario;
use sim_core::exhaustive::{DiskFrontier, Interrupt};
use std::path::Path;

fn loaded(name: &str) -> Box<dyn LoadedScenario> {
    let b = scenarios::bundled::find(name).unwrap();
    let protocol = scenarios::registry::protocol_for(b.name, b.source).unwrap();
    protocol.load(b.name, b.source).unwrap()
}

fn on_disk(settings: &Settings, dir: &Path, resume: bool) -> Settings {
    Settings {
        disk: Some(DiskFrontier {
            dir: dir.to_path_buf(),
            resume,
            identity: 7,
        }),
        ..settings.clone()
    }
}

/// What a search found, as `--json` has it, and the file its violation would write.
fn found(o: &Outcome) -> (serde_json::Value, Option<String>) {
    (
        serde_json::to_value(o).unwrap(),
        o.violation.as_ref().map(|v| v.text.clone()),
    )
}

/// Goal: the frontier's place changes nothing a search finds. Method: bundled files of three
/// protocols, bounded as the in-memory tests bound them; a Raft bug knob with a loss budget
/// and `--keep-going`, and under `--symmetry` (whose paths are found anew along the states'
/// fingerprints); each searched in memory and on disk, on one thread and two. Proves: equal counts, depths, `sometimes` depths and byte-identical
/// counterexample files.
#[test]
fn the_frontier_on_disk_finds_what_memory_finds() {
    let base = Settings::default();
    let cases: Vec<(&str, Option<&str>, Settings)> = vec![
        (
            "search/paxos-exhaustive",
            None,
            Settings {
                max_depth: Some(9),
                ..base.clone()
            },
        ),
        (
            "search/raft-exhaustive",
            Some("vote_twice"),
            Settings {
                max_depth: Some(6),
                max_epoch: Some(2),
                symmetry: true,
                ..base.clone()
            },
        ),
        (
            "search/raft-exhaustive",
            Some("vote_twice"),
            Settings {
                max_depth: Some(6),
                max_epoch: Some(2),
                loss_budget: 1,
                keep_going: true,
                ..base.clone()
            },
        ),
        (
            "search/ring-exhaustive",
            None,
            Settings {
                max_depth: Some(8),
                ..base.clone()
            },
        ),
    ];
    for (name, bug, settings) in cases {
        let l = match bug {
            None => loaded(name),
            Some(knob) => {
                let b = scenarios::bundled::find(name).unwrap();
                let protocol = scenarios::registry::protocol_for(b.name, b.source).unwrap();
                let sets = [("bugs".to_string(), format!("({knob}: true)"))];
                let text = scenarios::vary::apply_sets(b.source, &sets).unwrap();
                protocol.load(b.name, &text).unwrap()
            }
        };
        let memory = l.exhaustive(&settings, "a test", &mut |_| {}).unwrap();
        assert_eq!(memory.violation.is_some(), bug.is_some(), "{name} {bug:?}");
        for jobs in [1, 2] {
            let dir = scratch(&format!("disk-{}-{jobs}", name.replace('/', "-")));
            let settings = Settings {
                jobs,
                ..settings.clone()
            };
            let disk = l
                .exhaustive(&on_disk(&settings, &dir, false), "a test", &mut |_| {})
                .unwrap();
            assert_eq!(
                found(&disk),
                found(&memory),
                "{name} {bug:?}, {jobs} threads"
            );
        }
    }
}

/// Goal: a checkpoint is a search that can go on. Method: the two-proposer Paxos file to
/// depth 12 on disk, told to stop (as Ctrl-C does) after its fifth level, then resumed from
/// its directory, on one thread and on two. Proves: the stopped search says so and is
/// incomplete; the resumed one ends with the counts and findings of a search never stopped.
#[test]
fn a_search_stopped_after_a_level_and_resumed_ends_as_one_never_stopped() {
    let l = loaded("search/paxos-exhaustive");
    let settings = Settings {
        max_depth: Some(12),
        ..Settings::default()
    };
    let whole = l.exhaustive(&settings, "a test", &mut |_| {}).unwrap();
    assert!(whole.complete || whole.hit_depth_limit);
    for jobs in [1, 2] {
        let dir = scratch(&format!("disk-resume-{jobs}"));
        let interrupt = Interrupt::default();
        let stopping = Settings {
            jobs,
            interrupt: Some(interrupt.clone()),
            ..on_disk(&settings, &dir, false)
        };
        let stopped = l
            .exhaustive(&stopping, "a test", &mut |stats| {
                if stats.max_depth == 5 {
                    interrupt.raise();
                }
            })
            .unwrap();
        assert!(stopped.interrupted && !stopped.complete, "{stopped:?}");
        assert_eq!(stopped.max_depth, 5);
        assert!(stopped.unique_states < whole.unique_states);
        let resumed = l
            .exhaustive(&on_disk(&settings, &dir, true), "a test", &mut |_| {})
            .unwrap();
        assert_eq!(found(&resumed), found(&whole), "{jobs} threads");
    }
}

/// Goal: a checkpoint is not resumed as another search, and a directory that cannot be
/// written is an error, not a panic. Method: resume with another identity; search into a
/// directory under a file. Proves: errors that say why.
#[test]
fn a_checkpoint_of_another_search_and_an_unwritable_directory_are_refused() {
    let l = loaded("search/paxos-exhaustive");
    let settings = Settings {
        max_depth: Some(4),
        ..Settings::default()
    };
    let dir = scratch("disk-identity");
    l.exhaustive(&on_disk(&settings, &dir, false), "a test", &mut |_| {})
        .unwrap();
    let mut other = on_disk(&settings, &dir, true);
    if let Some(disk) = other.disk.as_mut() {
        disk.identity = 8;
    }
    let why = l.exhaustive(&other, "a test", &mut |_| {}).unwrap_err();
    assert!(why.contains("another search"), "{why}");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let why = l
        .exhaustive(
            &on_disk(&settings, &file.join("x"), false),
            "a test",
            &mut |_| {},
        )
        .unwrap_err();
    assert!(why.contains("a-file"), "{why}");
}

/// Goal: Ctrl-C stops a search on disk, which reports, keeps its files and is resumed from
/// the command line to the counts of an uninterrupted search. Method: `dsim explore
/// --checkpoint` of a search to depth 12, sent SIGINT once its third level is written; then
/// `--resume`. Proves: exit 130 with the partial report and the resume command,
/// then the uninterrupted search's counts.
#[test]
fn ctrl_c_stops_a_search_that_then_resumes_from_the_command_line() {
    let dir = scratch("disk-sigint");
    let ckpt = dir.join("search.ckpt");
    let ckpt_arg = ckpt.to_str().unwrap();
    let search = |extra: &[&'static str]| -> Vec<String> {
        let mut args: Vec<&str> = vec![
            "explore",
            "search/paxos-exhaustive",
            "--exhaustive",
            "--max-depth",
            "12",
            "--json",
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(String::from).collect()
    };
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(search(&["--checkpoint"]))
        .arg(ckpt_arg)
        .current_dir(crate::support::root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once its third level is on disk: well before its end (level 12), whatever
    // the machine's speed.
    let third = ckpt.join("level-000003.states");
    for _ in 0..12_000 {
        if third.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(
        third.exists(),
        "the search wrote no third level within a minute"
    );
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let stopped = child.wait_with_output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&stopped.stdout).unwrap();
    let run = |args: Vec<String>| dsim(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let whole = run(search(&["--frontier", "disk"]));
    let whole: serde_json::Value = serde_json::from_str(&stdout(&whole)).unwrap();
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
    assert_eq!(report["interrupted"], true, "{report}");
    assert_eq!(report["complete"], false, "{report}");
    assert!(
        stderr(&stopped).contains(&format!("--resume {ckpt_arg}")),
        "{}",
        stderr(&stopped)
    );
    let mut again = search(&["--resume"]);
    again.push(ckpt_arg.to_string());
    let resumed = run(again);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let resumed: serde_json::Value = serde_json::from_str(&stdout(&resumed)).unwrap();
    for key in [
        "unique_states",
        "transitions",
        "terminal_states",
        "max_depth",
    ] {
        assert_eq!(resumed[key], whole[key], "{key}");
    }
    assert_eq!(resumed["frontier"], "disk");
}

/// Goal: the flags that make no sense together are refused with a way out. Method: depth
/// first with a checkpoint, a checkpoint directory that holds one, a resume of a directory
/// without one, a resume with other flags. Proves: exit 2 and a message naming the fix.
#[test]
fn frontier_flags_that_cannot_work_are_refused() {
    let dir = scratch("disk-refusals");
    let ckpt = dir.join("c");
    let ckpt_arg = ckpt.to_str().unwrap();
    let base = [
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--max-depth",
        "5",
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        dsim(&args)
    };
    let dfs = with(&["--dfs", "--checkpoint", ckpt_arg]);
    assert_eq!(dfs.status.code(), Some(2));
    assert!(stderr(&dfs).contains("breadth first"), "{}", stderr(&dfs));
    let first = with(&["--checkpoint", ckpt_arg]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let again = with(&["--checkpoint", ckpt_arg]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("--resume"), "{}", stderr(&again));
    let nothing = with(&["--resume", dir.to_str().unwrap()]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(
        stderr(&nothing).contains("no checkpoint"),
        "{}",
        stderr(&nothing)
    );
    let other = dsim(&[
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--max-depth",
        "6",
        "--resume",
        ckpt_arg,
    ]);
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("another search"),
        "{}",
        stderr(&other)
    );
    let resumed = with(&["--resume", ckpt_arg]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert_eq!(stdout(&resumed), stdout(&first));
}
