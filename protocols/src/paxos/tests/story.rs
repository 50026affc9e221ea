//! The story of PX-1 in both languages, checked against the lesson's printed lines.

use super::support::{PaxosRun, Propose, lesson, px1, scenario};
use sim_core::RuleAction;
use traces::Lang;

fn px1_story(lang: Lang) -> Vec<String> {
    px1(&lesson(|_| {}), false).story(lang)
}

// Goal: the Spanish story uses the lesson's words. Method: narrate PX-1 in Spanish. Proves:
// the lesson's key lines appear verbatim (fase 1, PERDIDO, fase 2 fallida, ADOPTO/abandono,
// ELEGIDO ... (3 de 3)), in the lesson's order.
#[test]
fn px1_in_spanish_reads_like_the_lesson() {
    let story = px1_story(Lang::Es);
    let expected = [
        "[relay-1] fase 1: prepare(n=11) queriendo proponer 'relay-1'",
        "[relay-1] accept a a2 PERDIDO",
        "[relay-1] fase 2 fallida: 1 aceptados < mayoría 2",
        "[a1] prometido n=12, ya aceptado (11, 'relay-1')",
        "[relay-2] fase 2: un acceptor ya aceptó (11, 'relay-1'): ADOPTO 'relay-1' y abandono 'relay-2'",
        "[relay-2] fase 2: accept(n=12, 'relay-1')",
        "[relay-2] ELEGIDO 'relay-1' con n=12 (3 de 3)",
        "[relay-1] ELEGIDO 'relay-1' con n=21 (3 de 3)",
    ];
    let mut at = 0;
    for line in expected {
        let found = story[at..].iter().position(|l| l == line);
        let Some(i) = found else {
            panic!("missing or out of order: {line}\n{}", story.join("\n"));
        };
        at += i + 1;
    }
}

// Goal: the English story. Method: narrate PX-1 in English. Proves: adoption and choice read
// as the brief's lines, and only Paxos's own records are narrated (sends and deliveries are
// left to the generic narrator).
#[test]
fn px1_in_english() {
    let story = px1_story(Lang::En);
    assert!(story.contains(
        &"[relay-2] ADOPTS 'relay-1' (accepted at n=11) and gives up 'relay-2'".to_string()
    ));
    assert!(story.contains(&"[relay-2] CHOSEN 'relay-1' with n=12 (3 of 3)".to_string()));
    assert!(story.contains(&"[relay-1] accept to a3 LOST".to_string()));
    assert!(story.iter().all(|l| l.starts_with('[')));
}

// Goal: one line per decision. Method: PX-1's story, then a run where every Accepted reply to
// relay-2 is lost (its phase 2 fails, yet a majority accepted and relay-1 learns it). Proves:
// each chosen number is told once, by its proposer with its own count, and a decision the
// proposer never saw is told once by the learner that counted it.
#[test]
fn each_decision_is_told_once() {
    let story = px1_story(Lang::En);
    let chosen: Vec<&String> = story.iter().filter(|l| l.contains("CHOSEN")).collect();
    assert_eq!(
        chosen,
        [
            "[relay-2] CHOSEN 'relay-1' with n=12 (3 of 3)",
            "[relay-1] CHOSEN 'relay-1' with n=21 (3 of 3)"
        ],
        "{}",
        story.join("\n")
    );
    let mut s = scenario(&lesson(|_| {}), 1, false);
    for a in ["a1", "a2", "a3"] {
        s.rule(
            RuleAction::Drop,
            Some("Accepted"),
            Some(a),
            Some("relay-2"),
            None,
        );
    }
    s.propose(0, "relay-2");
    let story = s.run().story(Lang::En);
    let chosen: Vec<&String> = story.iter().filter(|l| l.contains("CHOSEN")).collect();
    assert_eq!(
        chosen,
        ["[relay-1] CHOSEN 'relay-2' with n=12 (2 of 3)"],
        "{}",
        story.join("\n")
    );
    assert!(story.contains(&"[relay-2] phase 2 failed: 0 accepted < majority 2".to_string()));
}
