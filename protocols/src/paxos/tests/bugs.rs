//! Each bug knob against its control: the same setup and seed pass with the knob off and are
//! caught by an invariant with it on. Runs keep going after a violation so that every invariant
//! that notices gets to say so.

use super::support::{Propose, Run, lesson, px1, scenario};
use crate::paxos::{Bugs, PaxosConfig, PaxosExpect};
use sim_core::{Action, Duration, RuleAction};

fn with(bugs: Bugs) -> PaxosConfig {
    lesson(|c| c.bugs = bugs)
}

// Goal: show what the adopt-highest rule protects. Method: PX-1 with
// `ignore_accepted_in_promises` on and off. Proves: off, no invariant fires; on, relay-2
// proposes itself at 12 and is chosen, then relay-1 proposes itself at 21 and is chosen too:
// agreement and chosen-value-is-stable both fire.
#[test]
fn ignore_accepted_in_promises_breaks_agreement() {
    let control = px1(&with(Bugs::default()), true);
    assert_eq!(control.violated(), Vec::<String>::new());
    let buggy = px1(
        &with(Bugs {
            ignore_accepted_in_promises: true,
            ..Bugs::default()
        }),
        true,
    );
    let fired = buggy.violated();
    assert!(fired.contains(&"agreement".to_string()), "{fired:?}");
    assert!(
        fired.contains(&"chosen-value-is-stable".to_string()),
        "{fired:?}"
    );
    assert!(buggy.check(&PaxosExpect::Chosen("relay-1".into())).is_err());
}

/// relay-1 prepares at 0 ms but its Accepts are delayed 50 ms; relay-2 prepares at 10 ms and
/// gets (12, relay-2) chosen at once; `crash` optionally crashes a1 and a2 at 20 ms and restarts
/// them at 30 ms. relay-1's Accept(11) then arrives below every promise.
fn late_accept(config: &PaxosConfig, crash: bool) -> Run {
    let mut s = scenario(config, 1, true);
    let delay = RuleAction::Delay {
        by: Duration::from_millis(50),
    };
    s.rule(delay, Some("Accept"), Some("relay-1"), None, None);
    s.propose(0, "relay-1").propose(10, "relay-2");
    if crash {
        for a in ["a1", "a2"] {
            let id = s.id(a);
            s.at(20, Action::Crash(id)).at(30, Action::Restart(id));
        }
    }
    s.run()
}

// Goal: show what P1a protects. Method: the late Accept(11) with `accept_below_promise` on and
// off. Proves: off, the acceptors refuse it and relay-2 stays chosen; on, they accept it and
// (11, relay-1) becomes chosen after (12, relay-2): agreement and chosen-value-is-stable fire.
#[test]
fn accept_below_promise_breaks_agreement() {
    let control = late_accept(&with(Bugs::default()), false);
    assert_eq!(control.violated(), Vec::<String>::new());
    control
        .check(&PaxosExpect::Chosen("relay-2".into()))
        .unwrap();
    let buggy = late_accept(
        &with(Bugs {
            accept_below_promise: true,
            ..Bugs::default()
        }),
        false,
    );
    let fired = buggy.violated();
    assert!(fired.contains(&"agreement".to_string()), "{fired:?}");
    assert!(
        fired.contains(&"chosen-value-is-stable".to_string()),
        "{fired:?}"
    );
}

// Goal: show why acceptor state must be durable. Method: the late Accept(11) after a1 and a2
// crash and restart, with `forget_promise_on_restart` on and off. Proves: off, the restarted
// acceptors still refuse 11 (their promise of 12 survived); on, they forgot it and accept,
// making (11, relay-1) chosen: agreement fires.
#[test]
fn forget_promise_on_restart_breaks_agreement() {
    let control = late_accept(&with(Bugs::default()), true);
    assert_eq!(control.violated(), Vec::<String>::new());
    control
        .check(&PaxosExpect::Acceptor {
            node: "a1".into(),
            promised: 12,
            accepted: Some((12, "relay-2".into())),
        })
        .unwrap();
    let buggy = late_accept(
        &with(Bugs {
            forget_promise_on_restart: true,
            ..Bugs::default()
        }),
        true,
    );
    let fired = buggy.violated();
    assert!(fired.contains(&"agreement".to_string()), "{fired:?}");
    // The knob alone, without a crash, changes nothing.
    let no_crash = late_accept(
        &with(Bugs {
            forget_promise_on_restart: true,
            ..Bugs::default()
        }),
        false,
    );
    assert_eq!(no_crash.violated(), Vec::<String>::new());
}
