//! The scenario-facing surface: RON syntax of config, commands and expectations, defaults,
//! node order, validation messages, and message kinds.

use crate::paxos::{OnTimeout, Paxos, PaxosCommand, PaxosConfig, PaxosExpect, PaxosMsg};
use sim_core::{Message, Protocol};

fn parse(text: &str) -> PaxosConfig {
    ron::from_str(text).unwrap()
}

// Goal: the lesson's cast in three lines of RON. Method: parse the minimal config. Proves:
// every optional field has the documented default (learners = proposers, ids by position,
// values = names, multiplier 10, 50 ms, GiveUp, no bugs).
#[test]
fn minimal_ron_config_gets_the_lesson_defaults() {
    let c = parse(r#"(proposers: ["relay-1", "relay-2"], acceptors: ["a1", "a2", "a3"])"#);
    assert_eq!(c, PaxosConfig::lesson());
    assert_eq!(c.learners(), ["relay-1", "relay-2"]);
    assert_eq!(c.proposer_id("relay-2"), Some(2));
    assert_eq!(c.proposer_value("relay-1"), "relay-1");
    assert_eq!(Paxos::nodes(&c), ["relay-1", "relay-2", "a1", "a2", "a3"]);
}

// Goal: every field spelled in RON. Method: parse a full config, and one with a misspelled
// field. Proves: values, ids, retry and bugs parse; unknown fields are refused, not ignored.
#[test]
fn full_ron_config_and_unknown_fields() {
    let c = parse(
        r#"(
            proposers: ["p"], acceptors: ["p", "a"], learners: Some(["l", "a"]),
            values: {"p": "x"}, ids: {"p": 3}, round_multiplier: 100, phase_timeout_ms: 20,
            on_timeout: Retry(5, 30), bugs: (accept_below_promise: true),
        )"#,
    );
    assert_eq!(c.proposer_value("p"), "x");
    assert_eq!(c.proposer_id("p"), Some(3));
    assert_eq!(c.on_timeout, OnTimeout::Retry(5, 30));
    assert!(c.bugs.accept_below_promise && !c.bugs.ignore_accepted_in_promises);
    assert_eq!(
        Paxos::nodes(&c),
        ["p", "a", "l"],
        "deduplicated, order kept"
    );
    let typo = r#"(proposers: ["p"], acceptors: ["a"], phase_timeout: 5)"#;
    assert!(ron::from_str::<PaxosConfig>(typo).is_err());
}

// Goal: validation. Method: configs with one mistake each. Proves: each is reported, located
// by the quoted name (or field), with a fix; the lesson's config has no problem.
#[test]
fn validate_reports_each_mistake_with_its_location() {
    assert_eq!(Paxos::validate(&PaxosConfig::lesson()), []);
    let cases = [
        (
            r#"(proposers: ["p", "p"], acceptors: ["a"])"#,
            "\"p\"",
            "twice",
        ),
        (r#"(proposers: [], acceptors: ["a"])"#, "proposers", "empty"),
        (
            r#"(proposers: ["p"], acceptors: ["a"], learners: Some([]))"#,
            "learners",
            "empty",
        ),
        (
            r#"(proposers: ["p", "q"], acceptors: ["a"], ids: {"q": 1})"#,
            "\"q\"",
            "both have id 1",
        ),
        (
            r#"(proposers: ["p"], acceptors: ["a"], ids: {"p": 10})"#,
            "\"p\"",
            "collide across rounds",
        ),
        (
            r#"(proposers: ["p"], acceptors: ["a"], values: {"z": "v"})"#,
            "\"z\"",
            "not a proposer",
        ),
        (
            r#"(proposers: ["p"], acceptors: ["a"], on_timeout: Retry(9, 1))"#,
            "Retry",
            "swap",
        ),
    ];
    for (text, locate, words) in cases {
        let problems = Paxos::validate(&parse(text));
        let hit = problems
            .iter()
            .any(|p| p.locate.as_deref() == Some(locate) && p.message.contains(words));
        assert!(hit, "{text}: {problems:?}");
    }
    let mut crowd = PaxosConfig::lesson();
    crowd.acceptors = (1..=62).map(|i| format!("a{i}")).collect();
    assert_eq!(Paxos::validate(&crowd), [], "64 nodes: the limit");
    crowd.acceptors.push("a63".into());
    let problems = Paxos::validate(&crowd);
    assert!(
        problems.iter().any(|p| p.message.contains("at most 64")),
        "65 nodes: {problems:?}"
    );
}

// Goal: commands and expectations as scenario files spell them. Method: parse each RON form.
// Proves: the documented syntax is the real one, and expect_nodes names the nodes mentioned.
#[test]
fn commands_and_expectations_in_ron() {
    assert_eq!(
        ron::from_str::<PaxosCommand>("Propose").unwrap(),
        PaxosCommand::Propose
    );
    assert_eq!(
        ron::from_str::<PaxosCommand>(r#"ProposeValue("x")"#).unwrap(),
        PaxosCommand::ProposeValue("x".into())
    );
    let forms = [
        r#"Chosen("relay-1")"#,
        "NothingChosen",
        r#"Learned(node: "relay-2", value: "relay-1")"#,
        r#"Acceptor(node: "a2", promised: 21, accepted: Some((21, "relay-1")))"#,
    ];
    let parsed: Vec<PaxosExpect> = forms.iter().map(|f| ron::from_str(f).unwrap()).collect();
    assert_eq!(
        parsed[3],
        PaxosExpect::Acceptor {
            node: "a2".into(),
            promised: 21,
            accepted: Some((21, "relay-1".into()))
        }
    );
    assert_eq!(Paxos::expect_nodes(&parsed[3]), ["a2"]);
    assert_eq!(Paxos::expect_nodes(&parsed[0]), Vec::<String>::new());
}

// Goal: message kinds for fault rules. Method: every variant's kind(). Proves: each kind is
// listed in KINDS and named after its variant.
#[test]
fn every_message_kind_is_listed() {
    let all = [
        PaxosMsg::Prepare { n: 1 },
        PaxosMsg::Promise {
            n: 1,
            accepted: None,
        },
        PaxosMsg::Nack { n: 1, promised: 2 },
        PaxosMsg::Accept {
            n: 1,
            value: "v".into(),
        },
        PaxosMsg::Accepted {
            n: 1,
            value: "v".into(),
        },
    ];
    let kinds: Vec<&str> = all.iter().map(Message::kind).collect();
    assert_eq!(kinds, PaxosMsg::KINDS);
}
