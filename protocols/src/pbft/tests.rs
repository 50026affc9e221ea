//! Unit tests of PBFT's rules, one handler call at a time, and of its config checks.

use crate::pbft::config::{PbftConfig, quorum, validate};
use crate::pbft::msg::{PbftMsg, PrePrepare, Prepare, Request, digest_of};
use crate::pbft::notes::{PbftNote, Refusal};
use crate::pbft::sign::Signed;
use crate::pbft::{Op, Pbft, PbftNode};
use sim_core::actor::notes_of;
use sim_core::{NodeId, Protocol, TestContext};

fn config(n: usize, f: u32) -> PbftConfig {
    ron::from_str(&format!(
        "(replicas: [{}], clients: [\"c1\"], f: {f})",
        (0..n)
            .map(|i| format!("\"r{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    ))
    .unwrap()
}

/// A request of client `c1` (the node after the `n` replicas), signed by it.
fn request(n: u32, op: Op) -> Signed<Request> {
    let mut client = TestContext::<PbftNode>::new(NodeId(n));
    Signed::new(&client.ctx(), Request { op, timestamp: 1 })
}

/// A pre-prepare for `request` at (view 0, seq 1), signed by replica `by`.
fn pre_prepare(by: u32, request: &Signed<Request>) -> PbftMsg {
    let mut signer = TestContext::<PbftNode>::new(NodeId(by));
    let body = PrePrepare {
        view: 0,
        seq: 1,
        digest: digest_of(request),
    };
    PbftMsg::PrePrepare(Signed::new(&signer.ctx(), body), request.clone())
}

/// What replica `me` of `config` notes when handed `msgs` in order.
fn notes_after(config: &PbftConfig, me: u32, msgs: Vec<(u32, PbftMsg)>) -> Vec<PbftNote> {
    let mut node = Pbft::build_all(config).remove(me as usize);
    let mut t = TestContext::<PbftNode>::new(NodeId(me));
    let mut notes = Vec::new();
    for (from, msg) in msgs {
        sim_core::Actor::on_message(&mut node, &mut t.ctx(), NodeId(from), msg);
        notes.extend(notes_of(&t.take()));
    }
    notes
}

#[test]
fn quorums_are_2f_plus_1_at_3f_plus_1_intersecting_above_and_n_minus_f_below() {
    assert_eq!(quorum(4, 1), 3);
    assert_eq!(quorum(7, 2), 5);
    assert_eq!(quorum(10, 3), 7);
    // Above the bound two quorums must still share f + 1: ⌈(5 + 1 + 1) / 2⌉ = 4 of 5.
    assert_eq!(quorum(5, 1), 4);
    // Below it, N - f: what is left when f are silent (the failure allow_below_3f1 shows).
    assert_eq!(quorum(3, 1), 2);
    assert_eq!(quorum(1, 0), 1);
}

#[test]
fn a_cluster_below_3f1_is_refused_unless_the_file_asks_for_it() {
    let below = config(3, 1);
    let problems = validate(&below);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].message.contains("N >= 3f + 1 = 4"));
    assert!(problems[0].message.contains("allow_below_3f1"));
    let allowed = PbftConfig {
        allow_below_3f1: true,
        ..below
    };
    assert!(validate(&allowed).is_empty());
    assert!(validate(&config(4, 1)).is_empty());
}

#[test]
fn more_byzantine_replicas_than_f_unknown_names_and_short_windows_are_refused() {
    let mut c = config(4, 1);
    c.byzantine = ron::from_str(r#"{"r1": [Silent], "r2": [Lie], "c1": [Lie]}"#).unwrap();
    c.window = 2;
    let messages: Vec<String> = validate(&c).into_iter().map(|p| p.message).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("3 Byzantine replicas but f = 1")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("\"c1\" is in `byzantine` but is not a replica"))
    );
    assert!(messages.iter().any(|m| m.contains("`window` 2")));
}

#[test]
fn a_backup_refuses_a_pre_prepare_its_view_s_primary_did_not_sign() {
    let c = config(4, 1);
    let req = request(4, Op::Put("x".into(), "1".into()));
    let notes = notes_after(&c, 1, vec![(3, pre_prepare(3, &req))]);
    assert!(
        matches!(&notes[..], [PbftNote::Refused { why: Refusal::NotPrimary { primary }, .. }] if primary == "r0"),
        "{notes:?}"
    );
    let mut buggy = c;
    buggy.bugs.accept_pre_prepare_from_backup = true;
    let notes = notes_after(&buggy, 1, vec![(3, pre_prepare(3, &req))]);
    assert!(
        matches!(notes[0], PbftNote::PrePrepared { .. }),
        "{notes:?}"
    );
}

#[test]
fn a_second_request_at_one_view_and_number_is_refused() {
    let c = config(4, 1);
    let a = request(4, Op::Put("x".into(), "1".into()));
    let b = request(4, Op::Put("x".into(), "2".into()));
    let notes = notes_after(
        &c,
        1,
        vec![(0, pre_prepare(0, &a)), (0, pre_prepare(0, &b))],
    );
    assert!(
        matches!(notes[0], PbftNote::PrePrepared { .. }),
        "{notes:?}"
    );
    assert!(
        matches!(
            notes[1],
            PbftNote::Refused {
                why: Refusal::Conflicting { .. },
                ..
            }
        ),
        "{notes:?}"
    );
}

#[test]
fn prepared_takes_2f_prepares_from_backups_and_the_primary_s_does_not_count() {
    let c = config(4, 1);
    let req = request(4, Op::Get("x".into()));
    let prepare = |by: u32| {
        let mut t = TestContext::<PbftNode>::new(NodeId(by));
        let body = Prepare {
            view: 0,
            seq: 1,
            digest: digest_of(&req),
        };
        PbftMsg::Prepare(Signed::new(&t.ctx(), body))
    };
    // r1's own prepare and the primary's: still one backup short.
    let notes = notes_after(&c, 1, vec![(0, pre_prepare(0, &req)), (0, prepare(0))]);
    assert!(
        !notes.iter().any(|n| matches!(n, PbftNote::Prepared { .. })),
        "{notes:?}"
    );
    // r1's own and r2's: 2f = 2 backups.
    let notes = notes_after(&c, 1, vec![(0, pre_prepare(0, &req)), (2, prepare(2))]);
    assert!(
        matches!(notes.last(), Some(PbftNote::Prepared { prepares: 2, .. })),
        "{notes:?}"
    );
}

/// A twin is a node of its own named after its replica, built as that replica, and counted
/// among the f faulty ones; a twin of a non-replica, of a Byzantine replica, or one too many
/// faulty is refused with the offending name.
#[test]
fn twins_are_nodes_of_their_own_counted_as_faulty() {
    let mut twinned = config(4, 1);
    twinned.twins = vec!["r1".into()];
    assert!(validate(&twinned).is_empty());
    assert_eq!(
        Pbft::nodes(&twinned),
        ["r0", "r1", "r2", "r3", "c1", "r1-twin"]
    );
    assert_eq!(Pbft::twin_of(&twinned, NodeId(5)), Some(NodeId(1)));
    assert_eq!(Pbft::twin_of(&twinned, NodeId(1)), None);
    assert_eq!(
        Pbft::build(&twinned, NodeId(5)),
        Pbft::build(&twinned, NodeId(1))
    );
    assert_eq!(twinned.correct_replicas(), ["r0", "r2", "r3"]);
    let refused = |edit: &dyn Fn(&mut PbftConfig)| {
        let mut c = twinned.clone();
        edit(&mut c);
        validate(&c)
            .into_iter()
            .map(|p| (p.locate.unwrap_or_default(), p.message))
            .collect::<Vec<_>>()
    };
    let not_replica = refused(&|c| c.twins = vec!["c1".into()]);
    assert_eq!(not_replica[0].0, "\"c1\"", "{not_replica:?}");
    let byzantine = refused(&|c| {
        c.byzantine
            .insert("r1".into(), vec![crate::pbft::Behaviour::Lie]);
    });
    assert!(
        byzantine
            .iter()
            .any(|(_, m)| m.contains("both Byzantine and twinned")),
        "{byzantine:?}"
    );
    let too_many = refused(&|c| c.twins.push("r2".into()));
    assert!(
        too_many
            .iter()
            .any(|(at, m)| at == "twins" && m.contains("2 faulty replicas")),
        "{too_many:?}"
    );
    let collides = refused(&|c| c.clients.push("r1-twin".into()));
    assert_eq!(collides[0].0, "\"r1-twin\"", "{collides:?}");
}
