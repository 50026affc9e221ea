//! The timed checker against hand-made histories and against a brute-force checker that tries
//! every order of every subset of the pending operations.

use super::{Budget, KvMap, KvOp, KvRet, Operation, Spec, Verdict, check, check_by_part};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use std::sync::atomic::{AtomicUsize, Ordering};

type Op = Operation<&'static str, KvMap>;

fn op(client: &'static str, op: KvOp, call: u64, ret: Option<(u64, KvRet)>) -> Op {
    Operation {
        client,
        op,
        call,
        ret,
    }
}

fn put(k: &str, v: &str) -> KvOp {
    KvOp::Put(k.into(), v.into())
}

fn get(k: &str) -> KvOp {
    KvOp::Get(k.into())
}

fn value(v: &str) -> Option<(u64, KvRet)> {
    Some((0, KvRet::Value(Some(v.into()))))
}

fn at(t: u64, ret: Option<(u64, KvRet)>) -> Option<(u64, KvRet)> {
    ret.map(|(_, r)| (t, r))
}

#[test]
fn a_stale_read_is_named_with_the_write_it_missed() {
    let history = vec![
        op("c1", put("x", "1"), 0, Some((5, KvRet::Done))),
        op("c1", put("x", "2"), 6, Some((10, KvRet::Done))),
        op("c3", put("y", "7"), 8, None),
        op("c2", get("x"), 20, at(30, value("1"))),
    ];
    let verdict = check_by_part(&KvMap::default(), &history, Budget::default());
    let Verdict::Violation(window) = verdict else {
        panic!("a stale read passed: {verdict:?}");
    };
    assert_eq!(window.part.as_deref(), Some("x"));
    assert_eq!(
        window.describe(&history, false),
        "get(x) by c2 returned 1 after put(x, 2) by c1 had returned"
    );
    assert_eq!(
        window.describe(&history, true),
        "get(x) de c2 devolvió 1 después de que put(x, 2) de c1 terminó"
    );
    assert!(matches!(
        check(&KvMap::default(), &history, Budget::default()),
        Verdict::Violation(_)
    ));
}

#[test]
fn a_read_overlapping_a_write_may_see_either_value_and_the_window_says_so() {
    for seen in ["1", "2"] {
        let history = vec![
            op("c1", put("x", "1"), 0, Some((5, KvRet::Done))),
            op("c1", put("x", "2"), 6, Some((20, KvRet::Done))),
            op("c2", get("x"), 10, at(15, value(seen))),
        ];
        let verdict = check_by_part(&KvMap::default(), &history, Budget::default());
        assert_eq!(verdict, Verdict::Linearizable, "read {seen}");
    }
    let history = vec![
        op("c1", put("x", "2"), 6, Some((20, KvRet::Done))),
        op("c2", get("x"), 10, at(15, value("3"))),
    ];
    let Verdict::Violation(window) = check_by_part(&KvMap::default(), &history, Budget::default())
    else {
        panic!("a value nobody wrote was read");
    };
    assert_eq!(
        window.describe(&history, false),
        "get(x) by c2 returned 3, while put(x, 2) by c1 was in flight"
    );
}

#[test]
fn a_retried_append_applied_twice_is_caught() {
    let append = KvOp::Append("x".into(), "a".into());
    let history = vec![
        op("c1", append.clone(), 0, None),
        op("c1", append, 10, Some((20, KvRet::Done))),
        op("c2", get("x"), 30, at(40, value("aa"))),
    ];
    // Two appends, one of them never acknowledged, may both have taken effect: "aa" is fine.
    assert_eq!(
        check_by_part(&KvMap::default(), &history, Budget::default()),
        Verdict::Linearizable
    );
    let once = vec![history[1].clone(), history[2].clone()];
    assert!(matches!(
        check_by_part(&KvMap::default(), &once, Budget::default()),
        Verdict::Violation(_)
    ));
}

#[test]
fn a_spent_budget_answers_unknown_instead_of_searching_on() {
    // Many overlapping writes and a read no order explains: the search must try them all.
    let mut history: Vec<Op> = (0..12)
        .map(|i| {
            let client: &'static str = Box::leak(format!("c{i}").into_boxed_str());
            op(
                client,
                put("x", &i.to_string()),
                0,
                Some((100, KvRet::Done)),
            )
        })
        .collect();
    history.push(op("r", get("x"), 0, at(100, value("none of them"))));
    let verdict = check_by_part(&KvMap::default(), &history, Budget(50));
    assert_eq!(
        verdict,
        Verdict::Unknown {
            part: Some("x".into()),
            steps: 50
        }
    );
    assert!(matches!(
        check_by_part(&KvMap::default(), &history, Budget::default()),
        Verdict::Violation(_)
    ));
}

/// One operation of a generated history, as numbers a strategy can shrink.
#[derive(Clone, Debug)]
struct Raw {
    client: u8,
    key: u8,
    kind: u8,
    value: u8,
    gap: u64,
    length: u64,
    point: u64,
    pending: bool,
}

fn raw() -> impl Strategy<Value = Raw> {
    (
        0..3u8,
        0..2u8,
        0..4u8,
        0..2u8,
        0..4u64,
        1..8u64,
        0..100u64,
        proptest::bool::weighted(0.15),
    )
        .prop_map(
            |(client, key, kind, value, gap, length, point, pending)| Raw {
                client,
                key,
                kind,
                value,
                gap,
                length,
                point,
                pending,
            },
        )
}

/// A history: each client's operations one after another; each takes effect at a point of its
/// interval, in the order of the points, so the returns are the map's; then, if `corrupt` says
/// so, one completed operation's return is replaced, which may or may not break it.
fn history(raws: &[Raw], corrupt: Option<(usize, u8)>) -> Vec<Op> {
    const CLIENTS: [&str; 3] = ["c0", "c1", "c2"];
    const KEYS: [&str; 2] = ["x", "y"];
    const VALUES: [&str; 2] = ["1", "2"];
    let mut free = [0u64; 3];
    let mut ops = Vec::new();
    let mut points = Vec::new();
    for r in raws {
        let c = usize::from(r.client);
        if free[c] == u64::MAX {
            continue; // a client whose operation never returned calls nothing more
        }
        let call = free[c] + r.gap;
        let end = call + r.length;
        let (k, v) = (KEYS[usize::from(r.key)], VALUES[usize::from(r.value)]);
        let kv = match r.kind {
            0 => put(k, v),
            1 => get(k),
            2 => KvOp::Append(k.into(), v.into()),
            _ => KvOp::Cas(k.into(), (r.value == 0).then(|| "1".into()), "2".into()),
        };
        // Points are tenths of a time unit, strictly inside the interval.
        points.push((call * 10 + 1 + r.point % (r.length * 10 - 1), ops.len()));
        ops.push(op(CLIENTS[c], kv, call, Some((end, KvRet::Done))));
        free[c] = if r.pending { u64::MAX } else { end + 1 };
        if r.pending {
            ops.last_mut().expect("just pushed").ret = None;
        }
    }
    points.sort_unstable();
    let mut map = KvMap::default();
    for (_, i) in points {
        let ret = map.invoke(&ops[i].op);
        if let Some((_, r)) = &mut ops[i].ret {
            *r = ret;
        }
    }
    if let Some((which, to)) = corrupt
        && !ops.is_empty()
    {
        let i = which % ops.len();
        if let Some((_, r)) = &mut ops[i].ret {
            *r = match r {
                KvRet::Done => KvRet::Done,
                KvRet::Swapped(s) => KvRet::Swapped(!*s),
                KvRet::Value(_) => {
                    KvRet::Value(["1", "2", "12"].get(usize::from(to)).map(|v| (*v).into()))
                }
            };
        }
    }
    ops
}

/// Whether some order of the completed operations and some of the pending ones keeps real-time
/// order and gives every completed operation its return: every permutation is tried.
fn brute_force(history: &[Op]) -> bool {
    let pending: Vec<usize> = (0..history.len())
        .filter(|&i| history[i].ret.is_none())
        .collect();
    (0..1u32 << pending.len()).any(|subset| {
        let chosen: Vec<usize> = (0..history.len())
            .filter(|i| match pending.iter().position(|p| p == i) {
                Some(bit) => subset & (1 << bit) != 0,
                None => true,
            })
            .collect();
        permutations(&chosen)
            .iter()
            .any(|order| explains(history, order))
    })
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.is_empty() {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            all.push(tail);
        }
    }
    all
}

fn explains(history: &[Op], order: &[usize]) -> bool {
    let keeps_real_time = order.iter().enumerate().all(|(pos, &a)| {
        order[pos + 1..].iter().all(|&b| {
            history[b]
                .ret
                .as_ref()
                .is_none_or(|(returned, _)| *returned >= history[a].call)
        })
    });
    let mut map = KvMap::default();
    keeps_real_time
        && order.iter().all(|&i| {
            let got = map.invoke(&history[i].op);
            history[i].ret.as_ref().is_none_or(|(_, want)| got == *want)
        })
}

/// The history as it stood when `culprit` returned: operations called by then, and those
/// returning later pending.
fn prefix(history: &[Op], cut: (u64, usize)) -> Vec<Op> {
    let key = |i: usize| history[i].ret.as_ref().map_or((u64::MAX, i), |r| (r.0, i));
    (0..history.len())
        .filter(|&i| history[i].call <= cut.0)
        .map(|i| {
            let mut o = history[i].clone();
            if key(i) > cut {
                o.ret = None;
            }
            o
        })
        .collect()
}

#[test]
fn the_checker_agrees_with_trying_every_order() {
    static SEEN: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let config = Config {
        cases: 1000,
        rng_seed: RngSeed::Fixed(48),
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (
        proptest::collection::vec(raw(), 1..=6),
        proptest::option::weighted(0.5, (0..6usize, 0..4u8)),
    );
    TestRunner::new(config)
        .run(&strategy, |(raws, corrupt)| {
            let history = history(&raws, corrupt);
            let expected = brute_force(&history);
            SEEN[usize::from(expected)].fetch_add(1, Ordering::Relaxed);
            let whole = check(&KvMap::default(), &history, Budget::default());
            let split = check_by_part(&KvMap::default(), &history, Budget::default());
            prop_assert_eq!(
                whole == Verdict::Linearizable,
                expected,
                "whole: {:?}",
                whole
            );
            prop_assert_eq!(
                split == Verdict::Linearizable,
                expected,
                "split: {:?}",
                split
            );
            if let Verdict::Violation(window) = split {
                // The window's culprit return is the first cut no order explains.
                let (end, _) = history[window.culprit]
                    .ret
                    .clone()
                    .expect("a culprit returned");
                let part: Vec<Op> = history
                    .iter()
                    .filter(|o| Some(o.op.key()) == window.part.as_deref())
                    .cloned()
                    .collect();
                let position = part
                    .iter()
                    .position(|o| *o == history[window.culprit])
                    .expect("the culprit is in its part");
                prop_assert!(!brute_force(&prefix(&part, (end, position))));
                let earlier = (0..part.len())
                    .filter_map(|i| part[i].ret.as_ref().map(|r| (r.0, i)))
                    .filter(|&c| c < (end, position))
                    .max();
                if let Some(cut) = earlier {
                    prop_assert!(brute_force(&prefix(&part, cut)), "an earlier cut fails");
                }
            }
            Ok(())
        })
        .unwrap();
    let [bad, good] = [0, 1].map(|i| SEEN[i].load(Ordering::Relaxed));
    assert!(
        bad >= 100 && good >= 100,
        "{good} linearizable, {bad} not: too few of one kind"
    );
}
