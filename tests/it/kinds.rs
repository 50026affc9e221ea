//! Message kinds: what scenario rules, traces and filters call a message is its variant's name,
//! for every protocol (`sim_core::message!` derives both `KINDS` and `kind()` from one list).

use crate::support::bundled_trace;
use scenarios::bundled::BUNDLED;
use serde_json::Value;
use std::collections::BTreeMap;
use std::collections::BTreeSet;

/// The variant name of a message as serde wrote it: `{"Prepare":{..}}` or `"Ping"`.
fn variant(msg: &Value) -> String {
    match msg {
        Value::String(s) => s.clone(),
        Value::Object(map) => map.keys().next().cloned().unwrap_or_default(),
        other => panic!("a message is a variant, not {other}"),
    }
}

// Goal: `KINDS` and `kind()` agree for every protocol, and both are the variants' names.
// Method: run every bundled scenario with its trace; each delivery, drop and duplicate carries
// `kind()` of a message whose send carries the message itself. Proves: every kind a run uses is
// the sent variant's name and one of `KINDS`; `KINDS` lists no name twice; every protocol's
// scenarios exercise their kinds (the list is not padded with names no message has).
#[test]
fn every_kind_is_its_variants_name_and_listed_once() {
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for b in BUNDLED {
        let protocol = scenarios::registry::protocol_for(b.name, b.source).unwrap();
        let kinds: BTreeSet<&str> = protocol.kinds().iter().copied().collect();
        assert_eq!(
            kinds.len(),
            protocol.kinds().len(),
            "{}: a kind listed twice",
            protocol.name()
        );
        let trace = bundled_trace(b);
        let mut sent: BTreeMap<u64, String> = BTreeMap::new();
        for line in trace.lines().skip(1) {
            let r: Value = serde_json::from_str(line).unwrap();
            let id = r["id"].as_u64();
            match r["kind"].as_str().unwrap() {
                "send" => {
                    let name = variant(&r["msg"]);
                    assert!(
                        kinds.contains(name.as_str()),
                        "{}: {name} is not a kind",
                        b.name
                    );
                    seen.entry(protocol.name())
                        .or_default()
                        .insert(name.clone());
                    sent.insert(id.unwrap(), name);
                }
                "deliver" | "drop" | "duplicate" => {
                    let kind = r["msg_kind"].as_str().unwrap();
                    assert_eq!(
                        Some(kind),
                        sent.get(&id.unwrap()).map(String::as_str),
                        "{}: {line}",
                        b.name
                    );
                }
                _ => {}
            }
        }
    }
    for protocol in scenarios::registry::protocols() {
        let used = seen.get(protocol.name()).cloned().unwrap_or_default();
        let listed: BTreeSet<String> = protocol.kinds().iter().map(|k| k.to_string()).collect();
        let unused: Vec<&String> = listed.difference(&used).collect();
        assert!(
            unused.is_empty(),
            "{}: no bundled scenario sends {unused:?}",
            protocol.name()
        );
    }
}
