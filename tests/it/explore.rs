//! `dsim explore` and the schedule machinery under it: the fast path judges runs as the full
//! trace does, a recorded run replays from its schedule exactly, a found counterexample is a
//! short file that `dsim run` replays, the findings do not depend on `--jobs`, and every
//! counterexample kept under `scenarios/regressions/` still breaks what it broke.

use crate::support::{dsim, ron_files, root, scratch, stderr, stdout};
use protocols::lease::Lease;
use protocols::multipaxos::MultiPaxos;
use protocols::paxos::Paxos;
use protocols::pbft::Pbft;
use protocols::raft::Raft;
use protocols::register::RegisterPaxos;
use protocols::ring_store::LiveRing;
use protocols::token_ring::TokenRingProtocol;
use scenarios::RunOptions;
use scenarios::bundled::BUNDLED;
use sim_core::{Event, Protocol, TraceMode};

/// Every bundled scenario with every bug knob of its protocol on (one at a time), plus as
/// written: the variants the fast-path test compares.
fn variants() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for b in BUNDLED {
        out.push((b.name.to_string(), b.source.to_string()));
        let protocol = scenarios::registry::protocol_for(b.name, b.source).unwrap();
        for bug in protocol.bugs() {
            let text = scenarios::vary::set_config_field(
                b.source,
                "bugs",
                &format!("({}: true)", bug.name),
            )
            .unwrap();
            out.push((format!("{} --bug {}", b.name, bug.name), text));
        }
    }
    out
}

/// Goal: the fast path (no trace, only the record kinds invariants read, one run cloned per
/// seed) judges a run exactly as a run keeping every record. Method: every bundled scenario, as written and with each bug
/// knob on, at seeds 0..4: explore's probe against `dsim run`'s first violation. Proves: no
/// invariant's `reads_note` leaves out a note it needs (a wrong one changes a verdict or its
/// step: shown by narrowing the Paxos filters to `Chosen` notes). `reads` itself applies to
/// both runs alike: [`invariants_read_every_kind_they_use`] checks it.
#[test]
fn the_fast_path_finds_what_the_full_trace_finds() {
    let mut broken = 0;
    for (name, text) in variants() {
        let protocol = scenarios::registry::protocol_for(&name, &text).unwrap();
        let loaded = protocol.load(&name, &text).unwrap();
        // The cloned-template path a search takes gives each seed's own verdict.
        let none = scenarios::explore::FaultModel::default();
        let one_by_one: Vec<_> = (0..4)
            .filter_map(|seed| loaded.probe(seed, &none).map(|f| (seed, f)))
            .collect();
        assert_eq!(
            loaded.probe_many(&[0, 1, 2, 3], &none),
            one_by_one,
            "{name}"
        );
        for seed in 0..4 {
            let full = loaded.run(&RunOptions {
                seed: Some(seed),
                ..RunOptions::default()
            });
            let first = full.report.violations.first();
            // Liveness is judged apart (the full run does not); compare the invariants.
            let fast = loaded
                .probe(seed, &scenarios::explore::FaultModel::default())
                .filter(|f| f.invariant != scenarios::explore::LIVENESS);
            let full_view = first.map(|v| (v.invariant.clone(), v.step, v.message.clone()));
            let fast_view = fast.map(|f| (f.invariant, f.step, f.message));
            assert_eq!(full_view, fast_view, "{name} seed {seed}");
            broken += usize::from(full_view.is_some());
        }
    }
    assert!(broken > 10, "the comparison saw violations ({broken})");
}

/// Every record of `source`'s runs at seeds 0 and 1 (a full trace), each shown to every
/// invariant that reads it and, on a copy, to every invariant that does not (see
/// [`invariants_read_every_kind_they_use`]). Returns how many records were shown to copies.
fn audit_reads<P: Protocol>(name: &str, source: &str) -> usize {
    let prep = scenarios::load::load::<P>(name, source).ok().unwrap();
    let mut ignored = 0;
    for seed in 0..2 {
        let mut sim = scenarios::run::build(&prep, seed);
        sim.set_trace(TraceMode::Memory(Vec::new()));
        sim.run();
        let mut invariants = P::invariants(&prep.doc.config);
        for record in sim.take_records() {
            if matches!(record.event, Event::Violation { .. }) {
                continue;
            }
            for invariant in &mut invariants {
                let reads = invariant.reads().contains(record.event.kind())
                    && match &record.event {
                        Event::Note { note, .. } => invariant.reads_note(note),
                        _ => true,
                    };
                if reads {
                    let _ = invariant.observe(&record);
                    continue;
                }
                let mut copy = invariant.clone();
                let before = format!("{invariant:?}");
                let said = copy.observe(&record);
                let what = format!(
                    "{name} seed {seed}: {} shown {:?}",
                    invariant.name(),
                    record
                );
                assert!(
                    said.is_ok(),
                    "{what} it does not read, and it broke: {said:?}"
                );
                assert_eq!(
                    format!("{copy:?}"),
                    before,
                    "{what} it does not read, and it changed"
                );
                ignored += 1;
            }
        }
    }
    ignored
}

/// Goal: an invariant's `reads` (and `reads_note`) name every record its `observe` uses. A
/// checker hands each invariant only the kinds it reads, traced or not, so a kind left out
/// would be ignored in every run, and no comparison of runs could tell. Method: every bundled
/// scenario, as written and with each bug knob on, seeds 0 and 1, with a full trace; every
/// record is also shown to a copy of each invariant that does not read it. Proves: the copy
/// neither breaks nor changes (its `Debug` text, which shows every field). Raft's
/// leader-log-up-to-date once read only notes while its log ledger forgot a crashed leader on
/// the crash's fault record: this test caught it.
#[test]
fn invariants_read_every_kind_they_use() {
    let mut ignored = 0;
    for (name, text) in variants() {
        ignored += match scenarios::load::protocol_of(&name, &text).unwrap().as_str() {
            "paxos" => audit_reads::<Paxos>(&name, &text),
            "multipaxos" => audit_reads::<MultiPaxos>(&name, &text),
            "raft" => audit_reads::<Raft>(&name, &text),
            "ring" => audit_reads::<LiveRing>(&name, &text),
            "pbft" => audit_reads::<Pbft>(&name, &text),
            "lease" => audit_reads::<Lease>(&name, &text),
            "register" => audit_reads::<RegisterPaxos>(&name, &text),
            "token-ring" => audit_reads::<TokenRingProtocol>(&name, &text),
            other => panic!("{name}: protocol {other} is not audited here: add it"),
        };
    }
    assert!(
        ignored > 10_000,
        "records shown to invariants that skip them: {ignored}"
    );
}

/// A run of `source` at `seed`, recording its choices, then the same run following them: both
/// traces as JSON lines.
fn recorded_and_followed<P: Protocol>(
    name: &str,
    source: &str,
    seed: u64,
) -> (String, String, usize) {
    let prep = scenarios::load::load::<P>(name, source).ok().unwrap();
    let trace = |sim: &mut sim_core::Sim<P::Actor>| {
        sim.set_trace(TraceMode::Memory(Vec::new()));
        sim.run();
        let header = scenarios::run::header(&prep, seed);
        scenarios::run::trace_text(&header, &sim.take_records())
    };
    let mut live = scenarios::run::build(&prep, seed);
    live.record_choices();
    let live_trace = trace(&mut live);
    let choices = live.recorded_choices().to_vec();
    let mut followed = scenarios::run::build(&prep, seed);
    followed.follow(&choices);
    (live_trace, trace(&mut followed), choices.len())
}

/// Goal: a schedule is the whole of a run's chance. Method: every bundled scenario at seeds
/// 0..3, recorded, then re-run following the recording. Proves: byte-identical traces, and the
/// lossy scenarios do record choices (the test is not vacuous).
#[test]
fn a_recorded_run_replays_from_its_schedule() {
    let mut recorded = 0;
    for b in BUNDLED {
        for seed in 0..3 {
            let (live, followed, n) = match scenarios::load::protocol_of(b.name, b.source)
                .unwrap()
                .as_str()
            {
                "paxos" => recorded_and_followed::<Paxos>(b.name, b.source, seed),
                "raft" => recorded_and_followed::<Raft>(b.name, b.source, seed),
                "ring" => recorded_and_followed::<LiveRing>(b.name, b.source, seed),
                "pbft" => recorded_and_followed::<Pbft>(b.name, b.source, seed),
                _ => continue,
            };
            assert_eq!(live, followed, "{} seed {seed}", b.name);
            recorded += n;
        }
    }
    assert!(recorded > 100, "{recorded} choices recorded");
}

/// Goal: the engineer's loop. Method: explore the swarm with acceptors that accept below their
/// promise; then `dsim run` the written file. Proves: exit 1 with the file written, at most 10
/// choices left, every choice explained in a comment; the file replays the violation (`dsim run`
/// passes because it expects exactly that violation, and its story shows it).
#[test]
fn explore_finds_shrinks_and_writes_a_file_that_replays() {
    let dir = scratch("explore-finds");
    let out = dir.join("found.ron");
    let o = dsim(&[
        "explore",
        "search/paxos-swarm",
        "--bug",
        "accept_below_promise",
        "--seeds",
        "0..300",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let choices: Vec<&str> = text
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            ["Lose(", "Latency(", "Duplicate(", "Draw("]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect();
    assert!(choices.len() <= 10, "{text}");
    assert!(choices.iter().all(|l| l.contains("// ")), "{text}");
    assert!(stdout(&o).contains("(replays)"), "{}", stdout(&o));
    let run = dsim(&["run", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert!(
        stdout(&run).contains("VIOLATION of agreement"),
        "{}",
        stdout(&run)
    );
    // A file with a schedule is replayed, not searched.
    let again = dsim(&["explore", out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("fixes its own `schedule:`"),
        "{}",
        stderr(&again)
    );
}

/// Goal: results identical at any --jobs. Method: the same search with 1 and 2 threads, going
/// on past the first finding. Proves: the same JSON, and a correct protocol's search exits 0.
#[test]
fn explore_results_do_not_depend_on_jobs() {
    let dir = scratch("explore-jobs");
    let json = |jobs: &str| {
        let out = dir.join(format!("cx-{jobs}.ron"));
        let o = dsim(&[
            "explore",
            "search/paxos-swarm",
            "--bug",
            "ignore_accepted_in_promises",
            "--seeds",
            "0..600",
            "--keep-going",
            "--crashes",
            "1",
            "--partitions",
            "1",
            "--window-ms",
            "60",
            "--json",
            "--jobs",
            jobs,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        stdout(&o)
            .replace(&format!("cx-{jobs}"), "cx")
            .replace(&format!("\"jobs\": {jobs}"), "")
    };
    assert_eq!(json("1"), json("2"));
    let clean = dsim(&["explore", "search/paxos-swarm", "--seeds", "0..500"]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    assert!(stdout(&clean).contains("no invariant broke in 500 seeds"));
}

/// Goal: a search injects faults of its own. Method: the swarm has no crash in its timeline,
/// so correct-looking acceptors that forget their promise on a restart never show; with three
/// random crashes per seed the search finds them. Proves: found, the written schedule keeps
/// fewer crashes than were injected (faults shrunk down to those that matter), and the file
/// replays.
#[test]
fn explore_injects_random_crashes_and_keeps_those_that_matter() {
    let dir = scratch("explore-crashes");
    let out = dir.join("crash.ron");
    let args = [
        "explore",
        "search/paxos-swarm",
        "--bug",
        "forget_promise_on_restart",
        "--seeds",
        "0..3000",
    ];
    let without = dsim(&args);
    assert_eq!(without.status.code(), Some(0), "{}", stdout(&without));
    let mut with = args.to_vec();
    with.extend([
        "--crashes",
        "3",
        "--window-ms",
        "50",
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = dsim(&with);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let crashes = text.matches("        Crash(").count();
    assert!((1..3).contains(&crashes), "{text}");
    assert!(text.contains("--crashes 3 --window-ms 50"), "{text}");
    let run = dsim(&["run", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert!(stdout(&run).contains("crash"), "{}", stdout(&run));
}

/// Goal: liveness is reported apart from safety. Method: Raft with every election timeout at
/// its minimum (the knob breaks no invariant: nodes that time out together split the vote
/// again and again), explored; then correct Raft on the same workload. Proves: the finding's
/// kind is `liveness`, the written file replays it, and correct Raft makes progress in every
/// one of the seeds.
#[test]
fn explore_reports_liveness_apart_from_safety() {
    let dir = scratch("explore-liveness");
    let out = dir.join("stuck.ron");
    let o = dsim(&[
        "explore",
        "search/raft-election",
        "--bug",
        "fixed_election_timeout",
        "--seeds",
        "0..200",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["found"][0]["kind"], "liveness", "{json}");
    assert_eq!(json["found"][0]["replays"], true, "{json}");
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("No progress")
    );
    let correct = dsim(&["explore", "search/raft-election", "--seeds", "0..200"]);
    assert_eq!(correct.status.code(), Some(0), "{}", stdout(&correct));
}

/// Goal: bug knobs are named, listed and checked. Method: --list-bugs for each protocol with
/// knobs; every listed knob switched on in a bundled scenario of its protocol; a misspelled
/// one. Proves: each listed name is a real config field (the file validates), and a typo is
/// refused with exit 2 and a suggestion.
#[test]
fn bug_knobs_are_listed_and_checked() {
    for b in BUNDLED {
        let protocol = scenarios::registry::protocol_for(b.name, b.source).unwrap();
        for bug in protocol.bugs() {
            let text = scenarios::vary::set_config_field(
                b.source,
                "bugs",
                &format!("({}: true)", bug.name),
            )
            .unwrap();
            assert!(
                protocol.validate(b.name, &text).is_ok(),
                "{} {}",
                b.name,
                bug.name
            );
        }
    }
    let o = dsim(&["explore", "paxos/lost-accepts", "--list-bugs"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("accept_below_promise"),
        "{}",
        stdout(&o)
    );
    let typo = dsim(&[
        "explore",
        "paxos/lost-accepts",
        "--bug",
        "accept_below_promis",
    ]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        stderr(&typo).contains("did you mean `accept_below_promise`"),
        "{}",
        stderr(&typo)
    );
}

/// Goal: counterexamples found once are kept forever. Method: every file under
/// `scenarios/regressions/` through `dsim run`. Proves: each still passes, that is, still
/// breaks exactly the invariants it names (a fix that hides a bug knob's effect fails here).
#[test]
fn kept_counterexamples_still_break_what_they_broke() {
    let files = ron_files(&root().join("scenarios/regressions"));
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("expect_violation"), "{}", file.display());
        let o = dsim(&["run", file.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}",
            file.display(),
            stdout(&o)
        );
    }
}

/// Goal: a search spread over a batch system's jobs gives what one run gives. Method: the swarm
/// with a random crash, 9,000 seeds (three batches), once whole and once as three shards merged,
/// without --keep-going and with --coverage, then with it and --swarm. Proves: the same
/// --json (but for how it ran; the swarm tally and the coverage curve included, cut where the
/// single run stops) and the same counterexample files; a merge missing a shard is refused.
#[test]
fn merged_shards_equal_the_single_run() {
    let dir = scratch("explore-shards");
    let at = |name: &str| dir.join(name).to_str().unwrap().to_string();
    for keep_going in [false, true] {
        let mut args = vec![
            "explore",
            "search/paxos-swarm",
            "--bug",
            "forget_promise_on_restart",
            "--crashes",
            "1",
            "--window-ms",
            "50",
            "--seeds",
            "0..9000",
            "--coverage",
            "--json",
        ];
        if keep_going {
            // With each seed's own fault mix: the merged swarm tally is the single run's too.
            // (Coverage is tested without it: a swarm reaches ~270 new states a seed.)
            args.retain(|a| !["--crashes", "1", "--coverage"].contains(a));
            args.extend(["--keep-going", "--swarm"]);
        }
        let json = |o: &std::process::Output| {
            let mut v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
            v.as_object_mut().unwrap().remove("execution");
            v
        };
        let whole_out = at("whole.ron");
        let mut whole = args.clone();
        whole.extend(["--out", &whole_out]);
        let single = dsim(&whole);
        assert_eq!(single.status.code(), Some(1), "{}", stderr(&single));
        let written = json(&single)["found"][0]["file"]
            .as_str()
            .unwrap()
            .to_string();
        let single_file = std::fs::read_to_string(&written).unwrap();
        std::fs::remove_file(&written).unwrap();
        let mut shards = Vec::new();
        for i in 0..3 {
            let (shard, out, file) = (
                format!("{i}/3"),
                at(&format!("s{i}.ron")),
                at(&format!("s{i}.json")),
            );
            let mut a = args.clone();
            a.extend(["--shard", &shard, "--out", &out]);
            let o = dsim(&a);
            assert!(
                o.status.code() == Some(0) || o.status.code() == Some(1),
                "{}",
                stderr(&o)
            );
            std::fs::write(&file, &o.stdout).unwrap();
            shards.push(file);
        }
        let mut merge = vec!["explore", "--json", "--out", &whole_out, "--merge"];
        merge.extend(shards.iter().map(String::as_str));
        let merged = dsim(&merge);
        assert_eq!(merged.status.code(), Some(1), "{}", stderr(&merged));
        assert_eq!(json(&merged), json(&single), "keep_going {keep_going}");
        assert_eq!(std::fs::read_to_string(&written).unwrap(), single_file);
        let partial = dsim(&["explore", "--merge", &shards[0], &shards[1]]);
        assert_eq!(partial.status.code(), Some(2));
        assert!(
            stderr(&partial).contains("shard 2/3 is missing"),
            "{}",
            stderr(&partial)
        );
    }
}

/// Goal: coverage says when more seeds stop finding new territory. Method: the correct swarm
/// over 5,000 seeds (two batches) with --coverage, at 1 and 2 jobs. Proves: the count of
/// distinct abstract states is reported after each batch, never shrinks, grows with the
/// second batch, and is the same at any --jobs; --plot draws it as an SVG picture.
#[test]
fn coverage_counts_distinct_states_batch_by_batch() {
    let curve = |jobs: &str| {
        let o = dsim(&[
            "explore",
            "search/paxos-swarm",
            "--seeds",
            "0..5000",
            "--coverage",
            "--json",
            "--jobs",
            jobs,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["coverage"].clone()
    };
    let one = curve("1");
    assert_eq!(one, curve("2"));
    let points: Vec<(u64, u64)> = one["curve"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
        .collect();
    assert_eq!(points.iter().map(|p| p.0).collect::<Vec<_>>(), [4096, 5000]);
    assert!(points[0].1 > 100 && points[1].1 > points[0].1, "{points:?}");
    assert_eq!(one["distinct_states"].as_u64(), Some(points[1].1));
    let plot = scratch("explore-coverage").join("coverage.svg");
    let o = dsim(&[
        "explore",
        "search/paxos-swarm",
        "--seeds",
        "0..300",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("distinct abstract states"),
        "{svg}"
    );
}

/// Goal: swarm testing gives each seed its own fault mix and says what each mix found. Method:
/// acceptors that forget their promise on a restart, searched with --swarm over 1,500 seeds to
/// the end. Proves: the tally's seeds add up to the seeds searched; every mix that found the
/// bug has a crash in it (a crash is what it takes) and some mix with a crash found it; some
/// mixes have no fault at all; the counterexample's header names its seed's mix; and
/// `--faults` keeps the mixes within the sorts it names.
#[test]
fn swarm_mixes_faults_per_seed_and_tallies_them() {
    let dir = scratch("explore-swarm");
    let out = dir.join("swarm.ron");
    let run = |faults: Option<&str>| {
        let mut args = vec![
            "explore",
            "search/paxos-swarm",
            "--bug",
            "forget_promise_on_restart",
            "--swarm",
            "--window-ms",
            "50",
            "--seeds",
            "0..1500",
            "--keep-going",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(f) = faults {
            args.extend(["--faults", f]);
        }
        let o = dsim(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let report = run(None);
    let rows = report["swarm"].as_array().expect("a swarm tally");
    let seeds: u64 = rows.iter().map(|r| r["seeds"].as_u64().unwrap()).sum();
    assert_eq!(seeds, 1500);
    assert!(rows.iter().any(|r| r["mix"] == "none"), "{rows:?}");
    let broke = |r: &serde_json::Value| {
        r["found"].as_object().unwrap().contains_key("agreement")
            || r["found"]
                .as_object()
                .unwrap()
                .contains_key("chosen-value-is-stable")
    };
    let finding: Vec<&str> = rows
        .iter()
        .filter(|r| broke(r))
        .map(|r| r["mix"].as_str().unwrap())
        .collect();
    assert!(!finding.is_empty(), "the bug was found: {rows:?}");
    for mix in &finding {
        assert!(
            mix.contains("crash"),
            "{mix} found a bug that needs a restart"
        );
    }
    let file = report["found"][0]["file"].as_str().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    assert!(
        text.contains("// The seed's swarm mix, before shrinking: "),
        "{text}"
    );
    assert!(text.contains("--swarm"), "{text}");
    let only = run(Some("loss,crash"));
    for row in only["swarm"].as_array().unwrap() {
        let mix = row["mix"].as_str().unwrap();
        assert!(
            mix.split('+')
                .all(|k| ["loss", "crash", "none"].contains(&k)),
            "{mix} is outside --faults loss,crash"
        );
    }
    assert_eq!(
        only["faults"]["kinds"],
        serde_json::json!(["loss", "crash"])
    );
    let refused = dsim(&[
        "explore",
        "search/paxos-swarm",
        "--faults",
        "loss",
        "--crashes",
        "1",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("add `crash` to --faults"),
        "{}",
        stderr(&refused)
    );
    let typo = dsim(&["explore", "search/paxos-swarm", "--faults", "los"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        stderr(&typo).contains("did you mean `loss`"),
        "{}",
        stderr(&typo)
    );
}

/// Goal: the PCT scheduler finds ordering bugs and hands back a file that replays. Method: the
/// swarm's proposers with acceptors that accept below their promise, and Raft nodes that vote
/// twice, searched with `--strategy pct` on 1 and 2 threads. Proves: each bug is found within
/// a few hundred walks; the report states the walks' length, chains and PCTCP's bound; the
/// written file (the walk retimed, then shrunk) passes `dsim run` by showing the violation;
/// the JSON is the same at any --jobs; a correct protocol gives nothing; and what PCT cannot
/// combine (swarm, injected faults) is refused.
#[test]
fn pct_finds_ordering_bugs_and_writes_files_that_replay() {
    let dir = scratch("explore-pct");
    let search = |scenario: &str, bug: Option<&str>, jobs: &str| {
        let out = dir.join(format!("pct-{jobs}.ron"));
        let mut args = vec![
            "explore",
            scenario,
            "--strategy",
            "pct",
            "--depth",
            "3",
            "--max-depth",
            "200",
            "--seeds",
            "0..400",
            "--json",
            "--jobs",
            jobs,
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(bug) = bug {
            args.extend(["--bug", bug]);
        }
        let o = dsim(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        let text = stdout(&o)
            .replace(&format!("pct-{jobs}"), "pct")
            .replace(&format!("\"jobs\": {jobs}"), "");
        (o.status.code(), text, out)
    };
    for (scenario, bug) in [
        ("search/paxos-swarm", "accept_below_promise"),
        ("search/raft-election", "vote_twice"),
    ] {
        let (code, one, file) = search(scenario, Some(bug), "1");
        assert_eq!(code, Some(1), "{scenario} --bug {bug}: {one}");
        let report: serde_json::Value = serde_json::from_str(&one).unwrap();
        let walks = &report["pct"];
        assert!(walks["walks"].as_u64().unwrap() >= 1, "{report}");
        assert!(walks["max_chains"].as_u64().unwrap() >= 2, "{report}");
        assert!(walks["max_moves"].as_u64().unwrap() <= 200, "{report}");
        assert_eq!(report["found"][0]["replays"], true, "{report}");
        let run = dsim(&["run", file.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("--strategy pct"), "{text}");
        let (_, two, _) = search(scenario, Some(bug), "2");
        assert_eq!(one, two, "{scenario}: the same at any --jobs");
    }
    let (code, clean, _) = search("search/paxos-swarm", None, "2");
    assert_eq!(code, Some(0), "{clean}");
    let words = dsim(&[
        "explore",
        "search/paxos-swarm",
        "--strategy",
        "pct",
        "--seeds",
        "0..50",
    ]);
    assert!(
        stdout(&words).contains("PCTCP's bound"),
        "{}",
        stdout(&words)
    );
    for extra in [["--swarm", ""], ["--crashes", "1"]] {
        let mut args = vec!["explore", "search/paxos-swarm", "--strategy", "pct"];
        args.extend(extra.iter().filter(|a| !a.is_empty()));
        let o = dsim(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
    }
}
