//! The course scenarios as a teacher uses them: change one line, see what changes.

use crate::support::{dsim, stdout};

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = crate::support::scratch(&format!("course-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

/// Goal: the lesson's variant, by editing one line. Method: add the Drop of relay-1's Accept to
/// a1 to lost-accepts.ron. Proves: relay-2 is chosen, and the run says plainly that the file's
/// expectation of relay-1 no longer holds (exit 1); the unedited file passes (control).
#[test]
fn losing_the_accept_to_a1_too_makes_relay_2_chosen() {
    let original = scenarios::bundled::find("paxos/lost-accepts")
        .unwrap()
        .source;
    let extra = "        At(0, Drop(from: \"relay-1\", to: \"a1\", msg: \"Accept\", nth: 1)),\n";
    let at = original
        .find("        At(0, Command(\"relay-1\", Propose)),")
        .unwrap();
    let edited = format!("{}{extra}{}", &original[..at], &original[at..]);
    let file = temp_file("lost-accepts.ron", &edited);
    let out = dsim(&["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("FAIL expect Chosen(\"relay-1\"): expected 'relay-1' chosen, but"),
        "{text}"
    );
    assert!(text.contains("CHOSEN 'relay-2'"), "{text}");
    assert_eq!(dsim(&["run", "paxos/lost-accepts"]).status.code(), Some(0));
}

/// Goal: a bug knob through the scenario file. Method: PX-1 with the proposer that ignores
/// accepted values in promises. Proves: relay-2 proposes its own value over relay-1's accepted
/// one, 'relay-2' is chosen at 12, and when relay-1 then gets 'relay-1' accepted at 21 the
/// stability invariant catches it; the replay line carries the knob. Without the knob (control)
/// the same file and seed pass.
#[test]
fn the_ignore_accepted_knob_breaks_agreement_in_px1() {
    let out = dsim(&[
        "run",
        "paxos/lost-accepts",
        "--set",
        "bugs=(ignore_accepted_in_promises: true)",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("violation of chosen-value-is-stable"),
        "{text}"
    );
    assert!(text.contains("CHOSEN 'relay-2' with n=12"), "{text}");
    assert!(
        text.contains("--set 'bugs=(ignore_accepted_in_promises: true)'"),
        "{text}"
    );
}

/// Goal: the lesson's Raft slip is a teaching counterexample that passes as a test, and a
/// faithful Raft does not have it. Method: run vote-reset-split-brain.ron as written (it expects
/// the split brain), then with the knob off. Proves: two leaders of term 1 with the slip; with
/// the control, nodo-3 keeps its vote and the expected violations do not happen (exit 1).
#[test]
fn the_lessons_vote_reset_slip_allows_two_leaders() {
    let out = dsim(&["run", "raft/vote-reset-split-brain"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let control = dsim(&[
        "run",
        "raft/vote-reset-split-brain",
        "--set",
        "bugs=(reset_vote_on_heartbeat: false)",
    ]);
    assert_eq!(control.status.code(), Some(1));
    let text = stdout(&control);
    assert!(text.contains("nodo-3 DENIES its vote to nodo-2"), "{text}");
    assert!(!text.contains("VIOLATION"), "{text}");
    assert!(text.contains("FAIL expect violation of at-most-one-leader-per-term: not found"));
}

/// The Spanish story of RF-1 uses the lesson's words, its printout's lines included: the
/// leader takes office with every vote counted, and returns believing it is still in its term.
#[test]
fn rf1_in_spanish() {
    let text = stdout(&dsim(&["run", "raft/leader-crash", "--lang", "es"]));
    for words in [
        "DENIEGO voto a nodo-3",
        "nodo-1: LÍDER del término 2 con 3 votos",
        "--- nodo-1 CAE ---",
        "--- nodo-1 VUELVE (cree seguir en el término 2) ---",
    ] {
        assert!(text.contains(words), "{words}: {text}");
    }
}

/// Goal: duplication never turns a promise into a refusal (a review found it did). Method:
/// duplicate every Prepare and Accept to a1 and a2 and lose the Prepare to a3. Proves: the
/// repeated Prepare is answered with the same promise, phase 2 does not fail early, and the
/// choice counts each acceptor once ("3 of 3", not 4 or 5).
#[test]
fn duplicated_prepares_and_accepts_are_harmless() {
    let text = r#"Scenario(description: "duplicates", protocol: "paxos",
      config: (proposers: ["p"], acceptors: ["a1", "a2", "a3"]),
      network: (latency: Fixed(1)),
      timeline: [
        At(0, Duplicate(msg: "Prepare", to: "a1", after_ms: 1)),
        At(0, Duplicate(msg: "Prepare", to: "a2", after_ms: 0)),
        At(0, Duplicate(msg: "Accept", to: "a1", after_ms: 0)),
        At(0, Drop(msg: "Prepare", to: "a3")),
        At(0, Command("p", Propose))],
      expect: [Chosen("p")])"#;
    let file = temp_file("duplicates.ron", text);
    let out = dsim(&["run", file.to_str().unwrap()]);
    let story = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{story}");
    assert!(!story.contains("failed"), "{story}");
    assert!(story.contains("CHOSEN 'p' with n=11 (3 of 3)"), "{story}");
}

/// Goal: `terms-never-decrease` is proven by a knob. Method: RF-1 with a real crash and restart,
/// with currentTerm kept in memory only. Proves: nodo-1 comes back at term 0 after leading term
/// 2 and the invariant fires; the same file and seed pass with the knob off (control).
#[test]
fn forgetting_the_term_on_restart_is_caught() {
    let out = dsim(&[
        "run",
        "raft/leader-crash-restart",
        "--set",
        "bugs=(forget_term_on_restart: true)",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("violation of terms-never-decrease"), "{text}");
    assert_eq!(
        dsim(&["run", "raft/leader-crash-restart"]).status.code(),
        Some(0)
    );
}

/// Goal: the liveness bound is proven by a knob. Method: RF-2's cast (latency 2-10 ms), a
/// bound of 2 s, and election timeouts that are never randomized. Proves: the three nodes keep
/// timing out together and splitting the vote, and `leader-elected-within-bound` fires; with
/// randomized timeouts (control) a leader comes within the bound.
#[test]
fn unrandomized_timeouts_break_the_liveness_bound() {
    let run = |fixed: bool| {
        dsim(&[
            "run",
            "raft/split-votes",
            "--set",
            "elect_within_ms=2000",
            "--set",
            "election_timeout_ms=(150,300)",
            "--set",
            &format!("bugs=(fixed_election_timeout: {fixed})"),
        ])
    };
    let broken = run(true);
    assert_eq!(broken.status.code(), Some(1));
    let text = stdout(&broken);
    assert!(
        text.contains("violation of leader-elected-within-bound"),
        "{text}"
    );
    let control = run(false);
    assert_eq!(control.status.code(), Some(0), "{}", stdout(&control));
}

/// Goal: PX-3's expectations hold for what the lesson claims, not for one seed's winner.
/// Method: the random back-off duel over 16 seeds, and the fixed back-off duel edited to expect
/// `SomethingChosen`. Proves: some value is chosen at every seed with random back-off, and the
/// expectation fails (exit 1) where the duel never ends.
#[test]
fn the_duel_ends_whatever_the_seed_and_the_expectation_can_fail() {
    let out = dsim(&[
        "sweep",
        "paxos/dueling-proposers",
        "--seeds",
        "0..16",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let source = scenarios::bundled::find("paxos/dueling-proposers-fixed-backoff")
        .unwrap()
        .source
        .replace("expect: [NothingChosen]", "expect: [SomethingChosen]");
    let file = temp_file("fixed.ron", &source);
    let out = dsim(&["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("FAIL expect SomethingChosen: expected some value chosen"));
}

/// Goal: PX-3 teaches the real cause of the duel. Method: `dsim sweep paxos/dueling-proposers
/// --json` over 50 seeds with the back-off fixed at 2 ms, drawn in 1..5 ms, and fixed at 10 ms.
/// Proves: a fixed back-off that always overtakes the rival's Accepts never chooses; one that
/// never does chooses at once (n=12, one failed phase) at every seed; a random short one duels for
/// some phases (median above 1) and then chooses at every seed, either proposer winning at some.
#[test]
fn px3_the_duel_lasts_while_the_back_off_is_shorter_than_the_accepts_flight() {
    let out = dsim(&[
        "sweep",
        "paxos/dueling-proposers",
        "--seeds",
        "0..50",
        "--vary",
        "on_timeout=Retry(2, 2)|Retry(10, 10)|Retry(1, 5)",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "Retry(2, 2) fails its expectation"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let variant = |i: usize| json["variants"][i]["summary"].clone();
    let measure = |v: &serde_json::Value, name: &str| {
        v["measures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .cloned()
            .unwrap()
    };
    let short_fixed = variant(0);
    assert_eq!(short_fixed["passed"], 0, "{short_fixed}");
    assert_eq!(measure(&short_fixed, "chosen_value")["runs"], 0);
    let long_fixed = variant(1);
    assert_eq!(long_fixed["passed"], 50, "{long_fixed}");
    assert_eq!(measure(&long_fixed, "chosen_at_n")["max"], 12);
    assert_eq!(measure(&long_fixed, "phases_failed_first")["max"], 1);
    let random = variant(2);
    assert_eq!(random["passed"], 50, "{random}");
    assert!(
        measure(&random, "phases_failed_first")["median"]
            .as_u64()
            .unwrap()
            > 1
    );
    let tally = measure(&random, "chosen_value")["tally"].clone();
    assert!(tally["relay-1"].as_u64().unwrap() > 0 && tally["relay-2"].as_u64().unwrap() > 0);
}

// Goal: "pause the leader" means the leader at that instant, whatever the seed. Method:
// raft/leader-crash-unpinned (`Pause("@leader")` at 1 s, `Resume("@leader")` at 2 s) over 30
// seeds; from each trace, the last node to become leader before 1 s. Control: the file with
// `Pause("nodo-1")` pauses a follower at some seed. Proves: the role step resolves to the
// leader of the newest term when it runs, and the resume finds the same node.
#[test]
fn pausing_the_leader_by_role_pauses_the_leader_at_every_seed() {
    use scenarios::RunOptions;
    let source = scenarios::bundled::find("raft/leader-crash-unpinned")
        .unwrap()
        .source;
    let protocol = scenarios::registry::protocol_for("unpinned", source).unwrap();
    let faults_and_leader = |source: &str, seed: u64| {
        let options = RunOptions {
            seed: Some(seed),
            keep_trace: true,
            ..RunOptions::default()
        };
        let trace = protocol
            .run("unpinned", source, &options)
            .unwrap()
            .trace
            .unwrap();
        let (mut leader, mut faults) = (None, Vec::new());
        for line in trace.lines().skip(1) {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let before_fault = r["time"].as_u64().unwrap() < 1_000_000_000;
            if before_fault && r["note"].get("BecameLeader").is_some() {
                leader = r["node"].as_str().map(str::to_string);
            }
            if let Some(f) = r["fault"].as_object() {
                faults.push(serde_json::to_string(f).unwrap());
            }
        }
        (faults, leader.expect("a leader before 1 s"))
    };
    let mut followers_paused = 0;
    for seed in 0..30 {
        let (faults, leader) = faults_and_leader(source, seed);
        let want = [
            format!("{{\"pause\":\"{leader}\"}}"),
            format!("{{\"resume\":\"{leader}\"}}"),
        ];
        assert_eq!(faults, want, "seed {seed}");
        let named = source.replace("\"@leader\"", "\"nodo-1\"");
        let (faults, leader) = faults_and_leader(&named, seed);
        if faults[0] != format!("{{\"pause\":\"{leader}\"}}") {
            followers_paused += 1;
        }
    }
    assert!(
        followers_paused > 0,
        "the control pauses a follower at some seed"
    );
}

// Goal: a role step that finds nobody says so in the story. Method: pause "@leader" at 50 ms,
// before any election can end (timeouts are at least 150 ms). Proves: the run goes on, and
// the story tells, in English and in Spanish, that the step did nothing.
#[test]
fn a_role_step_with_nobody_in_the_role_is_told() {
    let source = scenarios::bundled::find("raft/leader-crash-unpinned")
        .unwrap()
        .source;
    let early = source.replace("At(1000, Pause(\"@leader\"))", "At(50, Pause(\"@leader\"))");
    assert_ne!(early, source);
    let file = temp_file("vacant-leader.ron", &early);
    let path = file.to_str().unwrap();
    let en = stdout(&dsim(&["run", path]));
    assert!(
        en.contains("no node is leader now: the pause aimed at @leader does nothing"),
        "{en}"
    );
    let es = stdout(&dsim(&["run", path, "--lang", "es"]));
    assert!(
        es.contains("ningún nodo tiene ahora el rol @leader: la parada dirigida a él no hace nada"),
        "{es}"
    );
}

/// Goal: a long run's default story keeps the event the lesson is about in view. Method: the
/// default (shortened) story of each RING-6 scenario, whose join, leave, MOVED or split happens
/// in the middle of a load of reads and writes, and of RF-1. Proves: the event's line is shown,
/// the story stays on a screen or two (at most 200 lines), and the lines left out are counted.
#[test]
fn the_default_story_of_a_long_run_shows_what_the_lesson_is_about() {
    let cases = [
        ("ring/join-under-load", "epoch 1: join n6"),
        ("ring/leave", "epoch 1: leave n2"),
        ("ring/moved", "MOVED: "),
        ("ring/dynamic-split", "splits at"),
        ("ring/dynamic-split", "epoch 2: split at"),
    ];
    for (scenario, event) in cases {
        let out = dsim(&["run", scenario]);
        let story = stdout(&out);
        assert!(story.contains(event), "{scenario}: no {event:?}\n{story}");
        assert!(
            story.contains("more lines; the whole story with --full"),
            "{scenario}"
        );
        assert!(
            story.lines().count() <= 200,
            "{scenario}: {} lines",
            story.lines().count()
        );
    }
}

/// Goal: RF-1 with the leader cut off by a partition reads on a screen. Method: raft/leader-crash
/// with `Partition([["nodo-1"], ["nodo-2", "nodo-3"]])` at 1 s and `Heal` at 2 s instead of the
/// pause. Proves: the messages the partition cuts are told once per link and kind, with how
/// many more and until when (about 60 lines before), and the new leader is still told.
#[test]
fn messages_cut_by_a_partition_are_told_once_per_link() {
    let source = scenarios::bundled::find("raft/leader-crash")
        .unwrap()
        .source
        .replace(
            r#"At(1000, Pause("@leader")),"#,
            r#"At(1000, Partition([["nodo-1"], ["nodo-2", "nodo-3"]])),"#,
        )
        .replace(r#"At(2000, Resume("@leader")),"#, "At(2000, Heal),");
    let file = temp_file("partitioned.ron", &source);
    let story = stdout(&dsim(&["run", file.to_str().unwrap()]));
    let cut: Vec<&str> = story
        .lines()
        .filter(|l| l.contains("LOST (cut by a partition)"))
        .collect();
    assert!(!cut.is_empty() && cut.len() <= 8, "{story}");
    assert!(
        cut.iter()
            .any(|l| l.contains("more cut by the partition, until")),
        "{story}"
    );
    assert!(story.contains("is LEADER of term"), "{story}");
}

/// Goal: RF-2's terms without a leader are called what the lesson calls them. Method: the
/// split-votes story in Spanish and in English. Proves: "votos divididos en el término 1, nadie
/// tuvo mayoría" opens term 2's first candidacy (and "split vote in term 1" in English).
#[test]
fn a_split_vote_is_called_votos_divididos() {
    let es = stdout(&dsim(&["run", "raft/split-votes", "--lang", "es"]));
    assert!(
        es.contains("votos divididos en el término 1, nadie tuvo mayoría; "),
        "{es}"
    );
    let en = stdout(&dsim(&["run", "raft/split-votes"]));
    assert!(
        en.contains("split vote in term 1, nobody got a majority; "),
        "{en}"
    );
}

/// Goal: a Spanish class reads each course scenario's point in Spanish. Method: every bundled
/// file under `course/`, its source and `dsim run NAME --lang es`'s first line. Proves: each has
/// a `description_es`, and the Spanish story opens with it.
#[test]
fn every_course_scenario_has_a_spanish_description() {
    for b in scenarios::bundled::BUNDLED {
        let is_course = ["paxos/", "multipaxos/", "raft/", "ring/", "pbft/", "lease/"]
            .iter()
            .any(|p| b.name.starts_with(p));
        if !is_course {
            continue;
        }
        let line = b
            .source
            .lines()
            .find_map(|l| l.trim().strip_prefix("description_es: \""))
            .unwrap_or_else(|| panic!("{} has no description_es", b.name));
        let es = line.trim_end_matches("\",");
        let out = stdout(&dsim(&["run", b.name, "--lang", "es"]));
        let first = out.lines().next().unwrap_or_default();
        assert_eq!(first, format!("{} ({es})", b.name), "{}", b.name);
    }
}

/// Goal: the expectation lines of a Paxos run read in the lesson's Spanish. Method: PX-1 with
/// `--lang es`, and the never-ending duel edited to expect a choice. Proves: what held reads as
/// the lesson's final printout ("a1: prometido=21, aceptado=(21, 'relay-1')", "'relay-1'
/// elegido"), what failed says what was expected in Spanish, and the verdicts are the English
/// run's (exit codes equal).
#[test]
fn paxos_expectations_read_in_spanish() {
    let es = stdout(&dsim(&["run", "paxos/lost-accepts", "--lang", "es"]));
    assert!(
        es.contains("'relay-1' elegido, aprendido por relay-1, relay-2"),
        "{es}"
    );
    assert!(
        es.contains("a1: prometido=21, aceptado=(21, 'relay-1')"),
        "{es}"
    );
    assert!(es.contains("SUPERADO"), "{es}");
    let source = scenarios::bundled::find("paxos/dueling-proposers-fixed-backoff")
        .unwrap()
        .source
        .replace("expect: [NothingChosen]", "expect: [SomethingChosen]");
    let file = temp_file("fixed-es.ron", &source);
    let out = dsim(&["run", file.to_str().unwrap(), "--lang", "es"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("se esperaba algún valor elegido, pero ningún learner aprendió nada"),
        "{}",
        stdout(&out)
    );
}
