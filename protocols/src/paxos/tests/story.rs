//! The story of PX-1 in both languages, checked against the lesson's printed lines.

use super::support::{PaxosRun, lesson, px1};
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
