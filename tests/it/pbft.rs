//! PBFT end to end: the bug knobs are each found by `dsim explore` on a workload where a
//! Byzantine replica gives them a chance, with the correct protocol as control; and random
//! schedules over random choices of f Byzantine replicas and behaviours break nothing.

use crate::support::{dsim, scratch, stderr, stdout};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm, TestRng, TestRunner};
use protocols::pbft::PbftMsg;
use protocols::pbft::msg::ViewChange;
use protocols::pbft::sign::Signed;
use sim_core::{Choice, Duration, Event, MsgId, NodeId, TraceMode};

/// `dsim explore WORKLOAD [--bug KNOB]` over `seeds`, as JSON: the exit code and the first
/// broken invariant, if any.
fn explore(workload: &str, bug: Option<&str>, seeds: &str) -> (Option<i32>, Option<String>) {
    let out = scratch(&format!("pbft-{}", bug.unwrap_or("control"))).join("found.ron");
    let mut args = vec![
        "explore",
        workload,
        "--seeds",
        seeds,
        "--json",
        "--out",
        out.to_str().unwrap(),
    ];
    if let Some(bug) = bug {
        args.extend(["--bug", bug]);
    }
    let o = dsim(&args);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("{workload} {bug:?}: no JSON ({e}): {}", stderr(&o)));
    let found = json["found"][0]["finding"]["invariant"]
        .as_str()
        .map(str::to_string);
    if found.is_some() {
        assert_eq!(json["found"][0]["replays"], true, "{json}");
    }
    (o.status.code(), found)
}

/// Goal: every safety bug knob is caught by the invariant it breaks, and the correct protocol
/// on the same workload by none. Method: `dsim explore` each knob on its workload (N=4 with a
/// backup posing as primary; N=7 with an equivocating primary, where f + 1 < 2f; a view change
/// after a commit; view changes towards a lying primary), and each workload without a knob.
/// Proves: exit 1 and the named invariant for each knob within 200 seeds (its counterexample
/// replays), exit 0 and nothing found for the controls over 1,000 seeds (10,000 in the closing
/// note's release runs).
#[test]
fn each_bug_knob_is_caught_and_the_correct_protocol_is_not() {
    let knobs = [
        (
            "search/pbft-byzantine-backup",
            "commit_with_2f",
            "committed-local-implies-committed",
        ),
        (
            "search/pbft-byzantine-backup",
            "accept_pre_prepare_from_backup",
            "prepared-agreement",
        ),
        (
            "search/pbft-byzantine-backup",
            "execute_out_of_order",
            "same-execution-order",
        ),
        (
            "search/pbft-seven",
            "prepare_with_f_plus_1",
            "prepared-agreement",
        ),
        (
            "search/pbft-view-change",
            "new_view_drops_prepared",
            "committed-survives-view-change",
        ),
        (
            "search/pbft-lying-next-primary",
            "enter_view_unverified",
            "committed-survives-view-change",
        ),
    ];
    for (workload, knob, invariant) in knobs {
        let (code, found) = explore(workload, Some(knob), "0..200");
        assert_eq!(code, Some(1), "{workload} --bug {knob}");
        assert_eq!(found.as_deref(), Some(invariant), "{workload} --bug {knob}");
    }
    for workload in [
        "search/pbft-byzantine-backup",
        "search/pbft-seven",
        "search/pbft-view-change",
        "search/pbft-lying-next-primary",
    ] {
        assert_eq!(
            explore(workload, None, "0..1000"),
            (Some(0), None),
            "{workload}"
        );
    }
}

/// `dsim explore ARGS [--bug BUG] --json` writing into a scratch folder named `scratch`: the exit
/// code and the JSON report.
fn explore_json(
    scratch_name: &str,
    args: &[&str],
    bug: Option<&str>,
) -> (Option<i32>, serde_json::Value) {
    let out = scratch(scratch_name).join("found.ron");
    let mut all = vec!["explore"];
    all.extend(args);
    all.extend(["--json", "--out", out.to_str().unwrap()]);
    all.extend(bug.iter().flat_map(|b| ["--bug", *b]));
    let o = dsim(&all);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", stderr(&o)));
    (o.status.code(), json)
}

/// Goal: the view-change timeouts' doubling is what keeps PBFT live. Method: `dsim explore
/// search/pbft-short-timeouts` (timeouts shorter than a view change) over 100 seeds, with and
/// without `fixed_view_change_timeout`. Proves: with the knob, a liveness finding (the clients
/// never get their results) whose file replays; without it, every run makes progress.
#[test]
fn fixed_view_change_timeouts_stop_progress_and_doubling_ones_do_not() {
    let run = |bug: Option<&str>| {
        explore_json(
            "pbft-liveness",
            &["search/pbft-short-timeouts", "--seeds", "0..100"],
            bug,
        )
    };
    let (code, json) = run(Some("fixed_view_change_timeout"));
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(json["found"][0]["kind"], "liveness", "{json}");
    assert_eq!(json["found"][0]["replays"], true, "{json}");
    let (code, json) = run(None);
    assert_eq!(code, Some(0), "{json}");
}

/// Goal: PBFT stays safe when its primary has a twin (Bano et al., OPODIS 2021), under every
/// partition schedule of the Twins enumeration, and the enumeration finds what it should.
/// Method: `dsim explore search/pbft-twins --partition-rounds 2 --round-ms 60` over seeds
/// 0..4096 (r0 twinned; seven nodes, 64 two-sided splits per round), then with
/// `commit_with_2f`. Proves: all 4096 schedules are tried and none breaks an invariant or
/// stalls (exit 0); with the knob, exit 1 with committed-local-implies-committed, replaying.
/// The closing note's release runs take every replica in turn over three rounds.
#[test]
fn pbft_is_safe_under_every_twins_partition_schedule() {
    let run = |bug: Option<&str>| {
        let search = [
            "search/pbft-twins",
            "--partition-rounds",
            "2",
            "--round-ms",
            "60",
            "--seeds",
            "0..4096",
        ];
        explore_json("pbft-twins", &search, bug)
    };
    let (code, json) = run(None);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json["enumerated"], 4096, "{json}");
    assert_eq!(json["seeds_searched"], 4096, "{json}");
    let (code, json) = run(Some("commit_with_2f"));
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(
        json["found"][0]["finding"]["invariant"], "committed-local-implies-committed",
        "{json}"
    );
    assert_eq!(json["found"][0]["replays"], true, "{json}");
}

/// Goal: the course's comparison table (O(N²) messages a decision for PBFT, O(N) for Paxos with
/// a stable leader) comes from counted runs. Method: `dsim cost --sizes 4,7,10 --json`, and a
/// size PBFT cannot have. Proves: PBFT's agreement messages are 2N(N-1) a request, Paxos's
/// phase 2 2N a decision, so the ratio grows with N; N = 3 is refused with exit 2.
#[test]
fn dsim_cost_counts_quadratic_pbft_against_linear_paxos() {
    let o = dsim(&["cost", "--sizes", "4,7,10", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tables: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let mut ratios = Vec::new();
    for row in tables["rows"].as_array().unwrap() {
        let n = row["n"].as_f64().unwrap();
        let pbft = row["pbft_agreement_per_request"].as_f64().unwrap();
        let paxos = row["paxos_phase_2_per_decision"].as_f64().unwrap();
        assert_eq!(pbft, 2.0 * n * (n - 1.0), "{row}");
        assert_eq!(paxos, 2.0 * n, "{row}");
        ratios.push(pbft / paxos);
    }
    assert!(ratios.windows(2).all(|w| w[1] > w[0]), "{ratios:?}");
    let refused = dsim(&["cost", "--sizes", "3"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("PBFT needs 4"),
        "{}",
        stderr(&refused)
    );
}

/// A scenario of `n` replicas tolerating `f`, with `byzantine` (replica index, behaviours), two
/// clients writing at once over a lossy, duplicating, reordering network.
fn cluster(n: usize, f: usize, byzantine: &[(usize, Vec<&str>)]) -> String {
    let replicas: Vec<String> = (0..n).map(|i| format!("\"r{i}\"")).collect();
    let byzantine: Vec<String> = byzantine
        .iter()
        .map(|(i, b)| format!("\"r{i}\": [{}]", b.join(", ")))
        .collect();
    format!(
        r#"Scenario(
    description: "PBFT under random Byzantine replicas",
    protocol: "pbft",
    config: (
        replicas: [{}],
        clients: ["c1", "c2"],
        f: {f},
        checkpoint_interval: 2,
        window: 4,
        client_timeout_ms: 40,
        byzantine: {{{}}},
    ),
    network: (latency: Uniform(1, 15), loss: "1/20", duplicate: "1/20"),
    timeline: [
        At(0, Command("c1", Put("x", "1"))),
        At(0, Command("c2", Put("x", "2"))),
        At(3, Command("c1", Get("x"))),
        At(3, Command("c2", Put("y", "3"))),
    ],
    stop: (max_time_ms: 300),
)"#,
        replicas.join(", "),
        byzantine.join(", ")
    )
}

const BEHAVIOURS: [&str; 5] = ["Silent", "Equivocate", "Lie", "Replay", "DoubleVote"];

/// A cluster (N = 4, f = 1 or N = 7, f = 2), f distinct Byzantine replicas each with a
/// non-empty set of behaviours, and a schedule of up to 40 choices about the first 400
/// messages. Shrinks toward fewer choices and smaller indices.
fn cases() -> impl Strategy<Value = (String, Vec<Choice>)> {
    let choice = (1..400u64, 0..3u8, 0..14_000_000u64).prop_map(|(id, sort, ns)| match sort {
        0 => Choice::Lose(MsgId(id)),
        1 => Choice::Latency(MsgId(id), Duration(ns)),
        _ => Choice::Copy(MsgId(id), Duration(ns)),
    });
    let schedule = proptest::collection::vec(choice, 0..40);
    let shape = prop_oneof![Just((4usize, 1usize)), Just((7, 2))].prop_flat_map(|(n, f)| {
        let who = proptest::sample::subsequence((0..n).collect::<Vec<_>>(), f);
        let what = proptest::collection::vec(1u8..32, f);
        (Just((n, f)), who, what)
    });
    (shape, schedule).prop_map(|(((n, f), who, what), schedule)| {
        let byzantine: Vec<(usize, Vec<&str>)> = who
            .into_iter()
            .zip(what)
            .map(|(i, mask)| {
                let b = (0..5)
                    .filter(|k| mask & (1 << k) != 0)
                    .map(|k| BEHAVIOURS[k]);
                (i, b.collect())
            })
            .collect();
        (cluster(n, f, &byzantine), schedule)
    })
}

/// Goal: PBFT is safe with N >= 3f + 1 whatever f replicas do and whatever the network does.
/// Method: 10,000 generated cases (4 or 7 replicas, f random Byzantine replicas with random
/// behaviours, a random schedule of losses, copies and delays), about 25 s in a debug build.
/// Proves: no invariant breaks (a failure prints the shrunk scenario and schedule).
#[test]
fn pbft_is_safe_whatever_f_replicas_and_the_network_do() {
    safe_in(10_000);
}

fn safe_in(cases_to_run: u32) {
    let config = Config {
        cases: cases_to_run,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[17; 32]));
    runner
        .run(&cases(), |(source, schedule)| {
            let prep = scenarios::load::load::<protocols::pbft::Pbft>("pbft-property", &source)
                .expect("a valid scenario");
            let mut sim = scenarios::run::build(&prep, 0);
            sim.follow(&schedule);
            let v: Vec<String> = sim
                .run()
                .violations
                .into_iter()
                .map(|v| v.invariant)
                .collect();
            prop_assert!(v.is_empty(), "violated: {v:?}");
            Ok(())
        })
        .unwrap();
}

/// Goal: with a correct primary, a Byzantine backup and lost messages do not stop progress.
/// Method: 500 generated cases of N = 4 with one Byzantine backup (random behaviours), four
/// requests over a network that loses, copies and delays messages at random, 3 s to finish.
/// Proves: every client accepted a result for every request (lost messages are sent again
/// when a client asks again, and checkpoints move the water marks), and nothing broke.
#[test]
fn a_correct_primary_gets_every_request_through_a_byzantine_backup_and_losses() {
    let config = Config {
        cases: 500,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[23; 32]));
    let case = (1usize..4, 1u8..32, 0..u64::MAX);
    runner
        .run(&case, |(backup, mask, seed)| {
            let behaviours: Vec<&str> = (0..5)
                .filter(|k| mask & (1 << k) != 0)
                .map(|k| BEHAVIOURS[k])
                .collect();
            let source = cluster(4, 1, &[(backup, behaviours)])
                .replace("stop: (max_time_ms: 300)", "stop: (max_time_ms: 3000)");
            let prep = scenarios::load::load::<protocols::pbft::Pbft>("pbft-liveness", &source)
                .expect("a valid scenario");
            let mut sim = scenarios::run::build(&prep, seed);
            let report = sim.run();
            prop_assert!(
                report.violations.is_empty(),
                "violated: {:?}",
                report.violations
            );
            for id in sim.node_ids() {
                if let Some(client) = sim.actor(id).client() {
                    prop_assert!(
                        client.is_done(),
                        "{} is not done at seed {seed}",
                        sim.name(id)
                    );
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Goal: the N = 3 file shows the failure below 3f + 1, and only with the flag. Method: run
/// `pbft/below-3f1`, then validate it without `allow_below_3f1`. Proves: the run passes (it
/// expects the agreement violation and finds it); without the flag the file is refused with a
/// message naming 3f + 1 and the flag.
#[test]
fn below_3f1_shows_the_split_and_is_refused_without_the_flag() {
    let o = dsim(&["run", "pbft/below-3f1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("violation of agreement"),
        "{}",
        stdout(&o)
    );
    let source = scenarios::bundled::find("pbft/below-3f1")
        .unwrap()
        .source
        .replace("allow_below_3f1: true,", "");
    let dir = scratch("pbft-below");
    let file = dir.join("below.ron");
    std::fs::write(&file, source).unwrap();
    let o = dsim(&["validate", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("N >= 3f + 1 = 4") && err.contains("allow_below_3f1"),
        "{err}"
    );
}

/// Every signed part of `msg`, nested ones included (a pre-prepare carries its request, a view
/// change its checkpoint proof and certificates, a new view its view changes and
/// pre-prepares), as (signer, its bytes).
fn signed_parts(msg: &PbftMsg) -> Vec<(NodeId, String)> {
    fn part<T: serde::Serialize>(s: &Signed<T>, out: &mut Vec<(NodeId, String)>) {
        out.push((s.signer(), serde_json::to_string(s).unwrap()));
    }
    fn view_change(vc: &Signed<ViewChange>, out: &mut Vec<(NodeId, String)>) {
        part(vc, out);
        vc.body().proof.iter().for_each(|c| part(c, out));
        for cert in &vc.body().prepared {
            part(&cert.pre_prepare, out);
            cert.request.iter().for_each(|r| part(r, out));
            cert.prepares.iter().for_each(|p| part(p, out));
        }
    }
    let mut out = Vec::new();
    match msg {
        PbftMsg::Request(r) => part(r, &mut out),
        PbftMsg::PrePrepare(pp, r) => {
            part(pp, &mut out);
            part(r, &mut out);
        }
        PbftMsg::Prepare(p) => part(p, &mut out),
        PbftMsg::Commit(c) => part(c, &mut out),
        PbftMsg::Reply(r) => part(r, &mut out),
        PbftMsg::Checkpoint(c) => part(c, &mut out),
        PbftMsg::ViewChange(vc) => view_change(vc, &mut out),
        PbftMsg::NewView(nv) => {
            part(nv, &mut out);
            nv.body()
                .view_changes
                .iter()
                .for_each(|vc| view_change(vc, &mut out));
            for (pp, request) in &nv.body().pre_prepares {
                part(pp, &mut out);
                request.iter().for_each(|r| part(r, &mut out));
            }
        }
    }
    out
}

/// Goal: authentication holds in runs with every Byzantine behaviour: nobody sends a message
/// in another node's name. Method: the PBFT files and workloads at 20 seeds each, traced; for
/// each send, each signed part must be one its signer sent itself earlier (a forward or a
/// replay of a genuine message), or be sent by its signer now. Proves: no forged signature,
/// and that the check sees forwarded and replayed parts (it is not vacuous).
#[test]
fn no_node_ever_sends_a_message_in_another_node_s_name() {
    let mut relayed = 0;
    for b in scenarios::bundled::BUNDLED
        .iter()
        .filter(|b| b.source.contains("\"pbft\""))
    {
        let prep = scenarios::load::load::<protocols::pbft::Pbft>(b.name, b.source).unwrap();
        for seed in 0..20 {
            let mut sim = scenarios::run::build(&prep, seed);
            sim.set_trace(TraceMode::Memory(Vec::new()));
            sim.run();
            let ids: std::collections::BTreeMap<String, NodeId> = sim
                .node_ids()
                .map(|id| (sim.name(id).to_string(), id))
                .collect();
            let mut originated: std::collections::BTreeSet<(NodeId, String)> = Default::default();
            for record in sim.take_records() {
                let Event::Send { from, msg, .. } = &record.event else {
                    continue;
                };
                // A twin signs under the identity it shares.
                let sender = sim.identity(ids[from.as_ref()]);
                for (signer, bytes) in signed_parts(msg) {
                    if signer == sender {
                        originated.insert((signer, bytes));
                    } else {
                        assert!(
                            originated.contains(&(signer, bytes.clone())),
                            "{} seed {seed}: {from} sent {bytes} in {}'s name",
                            b.name,
                            sim.name(signer)
                        );
                        relayed += 1;
                    }
                }
            }
        }
    }
    assert!(relayed > 1000, "{relayed} relayed parts checked");
}

/// Goal: the one way around `Signed::new` stays closed. A handler could sign as another node
/// only by making a context of its own (`Context::new`, `TestContext`) or by deserializing a
/// signed value; the kernel and tests may, protocol code may not. Method: read every
/// non-test source file of `protocols/src`. Proves: none names either.
#[test]
fn protocol_code_never_makes_a_context_or_deserializes_a_message() {
    let mut checked = 0;
    for file in crate::support::files_ending(&crate::support::root().join("protocols/src"), "rs") {
        let path = file.to_string_lossy().into_owned();
        if path.ends_with("/tests.rs") || path.contains("/tests/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let before_tests = text.split("#[cfg(test)]").next().unwrap_or(&text);
        let code: String = before_tests
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        for banned in ["Context::new", "TestContext", "serde_json", "ron::from"] {
            assert!(!code.contains(banned), "{path} uses {banned}");
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked} files read");
}
