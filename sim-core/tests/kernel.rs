//! Kernel behaviour, each feature against a control run where the feature is absent.
//!
//! The probe actor below sends what the scenario commands, notes every delivery and timer, and
//! keeps one durable and one volatile counter, so that every kernel rule shows up in its records.

use serde::{Deserialize, Serialize};
use sim_core::Broken;
use sim_core::*;

#[derive(Clone, Debug, Hash, Default)]
struct Probe {
    durable: u32,
    volatile: u32,
    /// Timer to arm at start, in ms.
    start_timer_ms: Option<u64>,
}

#[derive(Clone, Debug, Hash, PartialEq, Serialize, Deserialize)]
enum Msg {
    Ping(u32),
}
impl Message for Msg {
    const KINDS: &'static [&'static str] = &["Ping"];
    fn kind(&self) -> &'static str {
        "Ping"
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Cmd {
    Send(u32, u32),
    Arm(u64),
    Disarm,
    Count,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Note {
    Got(u32),
    Fired { local_ms: u64 },
    Started { durable: u32, volatile: u32 },
}

impl Actor for Probe {
    type Msg = Msg;
    type Timer = u8;
    type Note = Note;
    type Command = Cmd;
    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        ctx.note(Note::Started {
            durable: self.durable,
            volatile: self.volatile,
        });
        if let Some(ms) = self.start_timer_ms {
            ctx.set_timer(0, Duration::from_millis(ms));
        }
    }
    fn on_message(&mut self, ctx: &mut Context<'_, Self>, _from: NodeId, msg: Msg) {
        let Msg::Ping(n) = msg;
        ctx.note(Note::Got(n));
    }
    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, _t: u8) {
        ctx.note(Note::Fired {
            local_ms: ctx.local_clock().as_millis(),
        });
    }
    fn on_command(&mut self, ctx: &mut Context<'_, Self>, cmd: Cmd) {
        match cmd {
            Cmd::Send(to, n) => ctx.send(NodeId(to), Msg::Ping(n)),
            Cmd::Arm(ms) => ctx.set_timer(0, Duration::from_millis(ms)),
            Cmd::Disarm => ctx.cancel_timer(0),
            Cmd::Count => {
                self.durable += 1;
                self.volatile += 1;
            }
        }
    }
    fn on_crash(&mut self) {
        self.volatile = 0;
    }
}

/// Node 0 sends `tokens` pings at start; every node forwards each ping to the next of three.
#[derive(Clone, Debug, Hash)]
struct Relay {
    tokens: u32,
}

impl Actor for Relay {
    type Msg = Msg;
    type Timer = ();
    type Note = ();
    type Command = ();
    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        if ctx.id() == NodeId(0) {
            for _ in 0..self.tokens {
                ctx.send(NodeId(1), Msg::Ping(0));
            }
        }
    }
    fn on_message(&mut self, ctx: &mut Context<'_, Self>, _from: NodeId, msg: Msg) {
        let Msg::Ping(n) = msg;
        ctx.send(NodeId((ctx.id().0 + 1) % 3), Msg::Ping(n + 1));
    }
    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: ()) {}
}

/// A node that claims "leader" in the epoch a command gives it (or nothing), and notes what it
/// is told: for role-targeted steps.
#[derive(Clone, Debug, Hash, Default)]
struct Claimant {
    epoch: Option<u64>,
}

impl Actor for Claimant {
    type Msg = Msg;
    type Timer = ();
    type Note = u64;
    type Command = Option<u64>;
    const ROLES: &'static [&'static str] = &["leader"];
    fn claim(&self) -> Option<RoleClaim> {
        self.epoch.map(|epoch| RoleClaim {
            role: "leader",
            epoch,
        })
    }
    fn on_message(&mut self, _ctx: &mut Context<'_, Self>, _from: NodeId, _msg: Msg) {}
    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: ()) {}
    fn on_command(&mut self, ctx: &mut Context<'_, Self>, epoch: Option<u64>) {
        match epoch {
            Some(e) if self.epoch.is_some() => ctx.note(e),
            _ => self.epoch = epoch,
        }
    }
    /// The claim is volatile, as a Raft role is.
    fn on_crash(&mut self) {
        self.epoch = None;
    }
}

/// Three claimants; each `(node, epoch)` claims leader at 0 ms; then `steps` at 10, 20 ... ms.
fn crowned(claims: &[(u32, u64)], steps: Vec<Action<Option<u64>>>) -> Vec<Record<Claimant>> {
    let mut s: Sim<Claimant> = Sim::new(SimConfig::default());
    for i in 0..3 {
        s.add_node(&format!("n{i}"), Claimant::default());
    }
    for &(node, epoch) in claims {
        s.schedule(ms(0), Action::Command(NodeId(node), Some(epoch)));
    }
    for (i, step) in steps.into_iter().enumerate() {
        s.schedule(ms(10 * (i as u64 + 1)), step);
    }
    s.set_trace(TraceMode::Memory(Vec::new()));
    s.run();
    s.take_records()
}

fn faults(records: &[Record<Claimant>]) -> Vec<Fault> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Fault { fault } => Some(fault.clone()),
            _ => None,
        })
        .collect()
}

fn to_leader(action: NodeAction<Option<u64>>) -> Action<Option<u64>> {
    Action::ToRole("leader".into(), action)
}

// Goal: "pause the leader" picks the claimant of the newest epoch. Method: n0 claims epoch 1,
// n2 epoch 3, n1 nothing; pause the leader, then pause it again, then resume it. Control: the
// same with n2 in epoch 1 (a tie: the lowest id, n0). Proves: newest epoch wins, ties go to the
// lowest id, a pause only targets up nodes and a resume only paused ones.
#[test]
fn a_role_step_targets_the_newest_claimant_the_action_can_apply_to() {
    let steps = || {
        vec![
            to_leader(NodeAction::Pause),
            to_leader(NodeAction::Pause),
            to_leader(NodeAction::Resume),
        ]
    };
    let name = |n: &str| Name::from(n);
    let newest = faults(&crowned(&[(0, 1), (2, 3)], steps()));
    assert_eq!(
        newest,
        [
            Fault::Pause(name("n2")),
            Fault::Pause(name("n0")),
            Fault::Resume(name("n2")),
        ]
    );
    let tie = faults(&crowned(&[(0, 1), (2, 1)], steps()));
    assert_eq!(
        tie,
        [
            Fault::Pause(name("n0")),
            Fault::Pause(name("n2")),
            Fault::Resume(name("n0")),
        ]
    );
}

// Goal: "restart the leader that crashed". Method: n0 claims epoch 1, n2 epoch 3; crash the
// leader twice (n2, then n0), then restart the leader twice. Proves: a crashed node, which has
// lost its claim, is found by the claim it held when it crashed: the newest (n2) first, then
// n0; a third restart finds nobody crashed and is vacant.
#[test]
fn a_role_restart_brings_back_the_crashed_leader() {
    let steps = vec![
        to_leader(NodeAction::Crash),
        to_leader(NodeAction::Crash),
        to_leader(NodeAction::Restart),
        to_leader(NodeAction::Restart),
        to_leader(NodeAction::Restart),
    ];
    let name = |n: &str| Name::from(n);
    assert_eq!(
        faults(&crowned(&[(0, 1), (2, 3)], steps)),
        [
            Fault::Crash(name("n2")),
            Fault::Crash(name("n0")),
            Fault::Restart(name("n2")),
            Fault::Restart(name("n0")),
            Fault::Vacant {
                role: Name::from("leader"),
                action: "restart".into()
            },
        ]
    );
}

// Goal: a role step with no claimant is told, not silently lost. Method: nobody claims; crash
// the leader and send it a command. Control: with a claimant the command reaches it. Proves: a
// vacant role gives `Fault::Vacant` naming the role and the step, and nothing else happens.
#[test]
fn a_role_step_with_no_claimant_is_traced_as_vacant() {
    let records = crowned(
        &[],
        vec![
            to_leader(NodeAction::Crash),
            to_leader(NodeAction::Command(Some(9))),
        ],
    );
    assert_eq!(
        faults(&records),
        [
            Fault::Vacant {
                role: Name::from("leader"),
                action: "crash".into()
            },
            Fault::Vacant {
                role: Name::from("leader"),
                action: "command".into()
            },
        ]
    );
    let commands = records
        .iter()
        .filter(|r| matches!(r.event, Event::Command { .. }))
        .count();
    assert_eq!(commands, 0, "a vacant step tells no node anything");
    let told = crowned(&[(1, 4)], vec![to_leader(NodeAction::Command(Some(9)))]);
    let notes: Vec<(&str, u64)> = trace::notes(&told).map(|(_, n, e)| (n, *e)).collect();
    assert_eq!(notes, [("n1", 9)]);
}

const A: NodeId = NodeId(0);
const B: NodeId = NodeId(1);
const C: NodeId = NodeId(2);

fn sim(seed: u64, link: LinkConfig) -> Sim<Probe> {
    let mut s = Sim::new(SimConfig {
        seed,
        link,
        ..SimConfig::default()
    });
    for name in ["a", "b", "c"] {
        s.add_node(name, Probe::default());
    }
    s.set_trace(TraceMode::Memory(Vec::new()));
    s
}

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

fn json(records: &[Record<Probe>]) -> String {
    records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect()
}

fn run(mut s: Sim<Probe>) -> (RunReport, Vec<Record<Probe>>) {
    let report = s.run();
    (report, s.take_records())
}

/// Notes `Got(n)` seen at node `name`, with their time in ms.
fn got(records: &[Record<Probe>], name: &str) -> Vec<(u64, u32)> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Note {
                node,
                note: Note::Got(n),
            } if &**node == name => Some((r.time.as_millis(), *n)),
            _ => None,
        })
        .collect()
}

fn drops(records: &[Record<Probe>]) -> Vec<DropReason> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Drop { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect()
}

fn chatty(s: &mut Sim<Probe>, count: u32) {
    for i in 0..count {
        s.schedule(ms(u64::from(i)), Action::Command(A, Cmd::Send(1, i)));
    }
}

fn uniform(min: u64, max: u64) -> LinkConfig {
    LinkConfig {
        latency: Latency::Uniform {
            min: Duration::from_millis(min),
            max: Duration::from_millis(max),
        },
        ..LinkConfig::default()
    }
}

/// Same seed twice: byte-identical traces. Another seed, with random latency: a different one.
#[test]
fn same_seed_same_bytes_other_seed_other_trace() {
    let make = |seed| {
        let mut s = sim(seed, uniform(1, 10));
        chatty(&mut s, 20);
        json(&run(s).1)
    };
    assert_eq!(make(7), make(7));
    assert_ne!(make(7), make(8));
}

/// Latency reorders: with uniform 1-10 ms, pings sent 1 ms apart arrive out of order for some
/// seed; with a fixed latency (the control) never.
#[test]
fn random_latency_reorders_and_fixed_does_not() {
    let order = |link| {
        let mut s = sim(3, link);
        chatty(&mut s, 20);
        got(&run(s).1, "b").iter().map(|g| g.1).collect::<Vec<_>>()
    };
    let fixed = order(LinkConfig::default());
    assert_eq!(fixed, (0..20).collect::<Vec<_>>());
    let random = order(uniform(1, 10));
    assert_eq!(random.len(), 20);
    assert_ne!(random, fixed);
}

#[test]
fn loss_drops_and_its_control_delivers_everything() {
    let lossy = LinkConfig {
        loss: Ratio::new(1, 2).unwrap(),
        ..LinkConfig::default()
    };
    let mut s = sim(1, lossy);
    chatty(&mut s, 100);
    let (report, recs) = run(s);
    let delivered = got(&recs, "b").len();
    assert!((30..70).contains(&delivered), "{delivered}");
    assert!(drops(&recs).iter().all(|d| *d == DropReason::Loss));
    assert_eq!(report.net.dropped as usize, 100 - delivered);
    let mut control = sim(1, LinkConfig::default());
    chatty(&mut control, 100);
    assert_eq!(got(&run(control).1, "b").len(), 100);
}

#[test]
fn duplication_delivers_twice_with_the_same_id() {
    let dup = LinkConfig {
        duplicate: Ratio::ONE,
        ..LinkConfig::default()
    };
    let mut s = sim(1, dup);
    chatty(&mut s, 3);
    let (report, recs) = run(s);
    assert_eq!(got(&recs, "b").len(), 6);
    assert_eq!(report.net.duplicated, 3);
    let ids: Vec<MsgId> = recs
        .iter()
        .filter_map(|r| match &r.event {
            Event::Deliver { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(ids, [1, 1, 2, 2, 3, 3].map(MsgId));
}

/// A partition from 10 ms heals at 20 ms: pings in between are cut, before and after arrive.
#[test]
fn partition_starts_and_heals_at_given_times() {
    let mut s = sim(1, LinkConfig::default());
    for t in [5, 15, 25] {
        s.schedule(ms(t), Action::Command(A, Cmd::Send(1, t as u32)));
        s.schedule(ms(t), Action::Command(C, Cmd::Send(1, 100 + t as u32)));
    }
    s.schedule(ms(10), Action::Partition(vec![vec![A]]));
    s.schedule(ms(20), Action::Heal);
    let recs = run(s).1;
    let at_b: Vec<u32> = got(&recs, "b").iter().map(|g| g.1).collect();
    assert_eq!(
        at_b,
        [5, 105, 115, 25, 125],
        "c stays with b; a is cut 10..20"
    );
    assert_eq!(drops(&recs), [DropReason::Partition]);
}

#[test]
fn one_way_partition_cuts_one_direction_only() {
    let mut s = sim(1, LinkConfig::default());
    s.schedule(ms(0), Action::PartitionOneWay(vec![A], vec![B]));
    s.schedule(ms(1), Action::Command(A, Cmd::Send(1, 1)));
    s.schedule(ms(1), Action::Command(B, Cmd::Send(0, 2)));
    let recs = run(s).1;
    assert!(got(&recs, "b").is_empty());
    assert_eq!(got(&recs, "a"), [(2, 2)]);
}

/// "Drop the 2nd Ping from a to b": exactly that one; the control without the rule loses none.
#[test]
fn targeted_rule_drops_exactly_the_nth_send() {
    let mut s = sim(1, LinkConfig::default());
    let mut rule = FaultRule::new(RuleAction::Drop);
    rule.from = Some(A);
    rule.to = Some(B);
    rule.kind = Some("Ping".into());
    rule.nth = Some(2);
    s.schedule(Instant::ZERO, Action::AddRule(rule));
    chatty(&mut s, 4);
    let recs = run(s).1;
    let at_b: Vec<u32> = got(&recs, "b").iter().map(|g| g.1).collect();
    assert_eq!(at_b, [0, 2, 3]);
    assert_eq!(drops(&recs), [DropReason::Rule(0)]);
}

#[test]
fn delay_and_duplicate_rules() {
    let mut s = sim(1, LinkConfig::default());
    let mut delay = FaultRule::new(RuleAction::Delay {
        by: Duration::from_millis(50),
    });
    delay.nth = Some(1);
    s.schedule(Instant::ZERO, Action::AddRule(delay));
    let mut dup = FaultRule::new(RuleAction::Duplicate {
        after: Duration::from_millis(7),
    });
    dup.nth = Some(2);
    s.schedule(Instant::ZERO, Action::AddRule(dup));
    chatty(&mut s, 2);
    let recs = run(s).1;
    // Ping 0 sent at 0 ms: 1 ms latency + 50 ms. Ping 1 sent at 1 ms: at 2 ms and a copy at 9 ms.
    assert_eq!(got(&recs, "b"), [(2, 1), (9, 1), (51, 0)]);
}

/// Crash: timers cancelled, deliveries dropped as "crashed", volatile state lost. Restart:
/// durable state kept, on_start again.
#[test]
fn crash_and_restart_semantics() {
    let mut s = sim(1, LinkConfig::default());
    s.schedule(ms(0), Action::Command(B, Cmd::Count));
    s.schedule(ms(0), Action::Command(B, Cmd::Arm(30)));
    s.schedule(ms(10), Action::Crash(B));
    s.schedule(ms(11), Action::Command(A, Cmd::Send(1, 1)));
    s.schedule(ms(50), Action::Restart(B));
    s.schedule(ms(60), Action::Command(A, Cmd::Send(1, 2)));
    let recs = run(s).1;
    assert_eq!(drops(&recs), [DropReason::Crashed]);
    assert_eq!(got(&recs, "b"), [(61, 2)]);
    let fired = recs.iter().any(|r| {
        matches!(
            r.event,
            Event::Note {
                note: Note::Fired { .. },
                ..
            }
        )
    });
    assert!(!fired, "the timer armed before the crash never fires");
    let restarted: Vec<(u32, u32)> = recs
        .iter()
        .filter_map(|r| match &r.event {
            Event::Note {
                node,
                note: Note::Started { durable, volatile },
            } if &**node == "b" => Some((*durable, *volatile)),
            _ => None,
        })
        .collect();
    assert_eq!(restarted, [(0, 0), (1, 0)]);
}

/// Pause: state kept, deliveries dropped as "paused", a timer due during the pause fires at the
/// resume, and a command while paused is refused.
#[test]
fn pause_and_resume_semantics() {
    let mut s = sim(1, LinkConfig::default());
    s.schedule(ms(0), Action::Command(B, Cmd::Count));
    s.schedule(ms(0), Action::Command(B, Cmd::Arm(30)));
    s.schedule(ms(10), Action::Pause(B));
    s.schedule(ms(11), Action::Command(A, Cmd::Send(1, 1)));
    s.schedule(ms(12), Action::Command(B, Cmd::Count));
    s.schedule(ms(100), Action::Resume(B));
    s.schedule(ms(110), Action::Command(A, Cmd::Send(1, 2)));
    let (_, recs) = run(s.clone());
    assert_eq!(drops(&recs), [DropReason::Paused]);
    assert_eq!(got(&recs, "b"), [(111, 2)]);
    let fired: Vec<u64> = recs
        .iter()
        .filter(|r| {
            matches!(
                r.event,
                Event::Note {
                    note: Note::Fired { .. },
                    ..
                }
            )
        })
        .map(|r| r.time.as_millis())
        .collect();
    assert_eq!(
        fired,
        [100],
        "due at 30 ms, held until the resume at 100 ms"
    );
    let refused = recs.iter().any(|r| {
        matches!(
            r.event,
            Event::Command {
                accepted: false,
                ..
            }
        )
    });
    assert!(refused);
    s.run();
    assert_eq!(s.actor(B).volatile, 1, "a pause keeps volatile state");
}

#[test]
fn cancelled_and_rearmed_timers_fire_once_at_the_last_deadline() {
    let mut s = sim(1, LinkConfig::default());
    s.schedule(ms(0), Action::Command(A, Cmd::Arm(10)));
    s.schedule(ms(5), Action::Command(A, Cmd::Arm(10)));
    s.schedule(ms(0), Action::Command(B, Cmd::Arm(10)));
    s.schedule(ms(5), Action::Command(B, Cmd::Disarm));
    let recs = run(s).1;
    let fired: Vec<(u64, String)> = recs
        .iter()
        .filter(|r| {
            matches!(
                r.event,
                Event::Note {
                    note: Note::Fired { .. },
                    ..
                }
            )
        })
        .map(|r| (r.time.as_millis(), r.event.node().unwrap().to_string()))
        .collect();
    assert_eq!(fired, [(15, "a".to_string())]);
}

/// Skew shifts what a node reads; drift makes its timers fire early (fast clock) in true time.
#[test]
fn clock_skew_and_drift() {
    let mut s = sim(1, LinkConfig::default());
    s.schedule(
        ms(0),
        Action::SetClock(
            A,
            Clock {
                skew_ns: 5_000_000,
                drift_ppm: 250_000,
            },
        ),
    );
    s.schedule(ms(0), Action::Command(A, Cmd::Arm(100)));
    s.schedule(ms(0), Action::Command(B, Cmd::Arm(100)));
    let recs = run(s).1;
    let fired: Vec<(u64, u64)> = recs
        .iter()
        .filter_map(|r| match &r.event {
            Event::Note {
                note: Note::Fired { local_ms },
                ..
            } => Some((r.time.as_millis(), *local_ms)),
            _ => None,
        })
        .collect();
    // a: 100 local ms at 1.25x = 80 true ms; reads 80 * 1.25 + 5 = 105. b (control): 100, 100.
    assert_eq!(fired, [(80, 105), (100, 100)]);
}

#[test]
fn a_send_to_an_unknown_node_is_a_traced_drop() {
    let mut s = sim(1, LinkConfig::default());
    s.schedule(ms(0), Action::Command(A, Cmd::Send(9, 1)));
    let (report, recs) = run(s);
    assert_eq!(drops(&recs), [DropReason::UnknownNode]);
    assert_eq!(report.stop, StopReason::Quiescent);
}

#[test]
fn limits_stop_the_run() {
    let ring = |limits: Limits, tokens| {
        let mut s: Sim<Relay> = Sim::new(SimConfig {
            limits,
            ..SimConfig::default()
        });
        for i in 0..3 {
            s.add_node(&format!("n{i}"), Relay { tokens });
        }
        s.run()
    };
    let steps = ring(
        Limits {
            max_steps: 100,
            ..Limits::default()
        },
        1,
    );
    assert_eq!((steps.stop, steps.steps), (StopReason::StepLimit, 100));
    let time = ring(
        Limits {
            max_time: ms(50),
            ..Limits::default()
        },
        1,
    );
    assert_eq!((time.stop, time.time), (StopReason::TimeLimit, ms(50)));
    let flight = ring(
        Limits {
            max_in_flight: 4,
            ..Limits::default()
        },
        5,
    );
    assert_eq!(flight.stop, StopReason::InFlightLimit);
    let mut quiet: Sim<Probe> = sim(1, LinkConfig::default());
    chatty(&mut quiet, 2);
    assert_eq!(quiet.run().stop, StopReason::Quiescent);
}

/// Fork at a step: the clone and the original go on to the same end, byte for byte.
#[test]
fn a_cloned_sim_forks_the_run() {
    let mut s = sim(5, uniform(1, 10));
    chatty(&mut s, 30);
    for _ in 0..25 {
        s.step();
    }
    let fork = s.clone();
    assert_eq!(fork.state_hash(), s.state_hash());
    let a = json(&run(s).1);
    let b = json(&run(fork).1);
    assert_eq!(a, b);
}

/// A recorded random run's choices, followed as a schedule, give the same trace; an empty
/// schedule gives the healthy run (no loss).
#[test]
fn scripted_decisions_replay_a_recorded_run() {
    let lossy = LinkConfig {
        loss: Ratio::new(1, 3).unwrap(),
        latency: Latency::Uniform {
            min: Duration::from_millis(1),
            max: Duration::from_millis(10),
        },
        ..LinkConfig::default()
    };
    let mut live = sim(11, lossy);
    chatty(&mut live, 30);
    let mut scripted = live.clone();
    let mut healthy = live.clone();
    live.record_choices();
    live.run();
    let script = live.recorded_choices().to_vec();
    assert!(script.iter().any(|c| matches!(c, Choice::Lose(_))));
    let live_trace = json(&live.take_records());
    scripted.follow(&script);
    assert_eq!(json(&run(scripted).1), live_trace);
    healthy.follow(&[]);
    assert!(drops(&run(healthy).1).is_empty());
}

#[derive(Clone, Debug)]
struct NoSeven;
impl Invariant<Probe> for NoSeven {
    fn name(&self) -> &'static str {
        "no-seven"
    }
    fn observe(&mut self, r: &Record<Probe>) -> Result<(), Broken> {
        match &r.event {
            Event::Note {
                note: Note::Got(7), ..
            } => Err("someone got a 7".into()),
            _ => Ok(()),
        }
    }
}

/// The first violation stops the run, with its step and time; configured otherwise, the run
/// goes on and collects every violation.
#[test]
fn first_violation_stops_the_run_unless_configured_otherwise() {
    let build = |stop| {
        let mut s = Sim::new(SimConfig {
            stop_on_violation: stop,
            ..SimConfig::default()
        });
        s.add_node("a", Probe::default());
        s.add_node("b", Probe::default());
        s.add_invariant(Box::new(NoSeven));
        for (t, n) in [(1, 7), (2, 1), (3, 7)] {
            s.schedule(ms(t), Action::Command(A, Cmd::Send(1, n)));
        }
        s.run()
    };
    let stopped = build(true);
    assert_eq!(stopped.stop, StopReason::Violation);
    assert_eq!(stopped.violations.len(), 1);
    assert_eq!(stopped.violations[0].time, ms(2));
    let going = build(false);
    assert_eq!(going.stop, StopReason::Quiescent);
    assert_eq!(going.violations.len(), 2);
}

/// Records round-trip through JSON, so a checker reads a file exactly as it read the run.
#[test]
fn records_round_trip_through_json() {
    let mut s = sim(2, uniform(1, 3));
    chatty(&mut s, 5);
    s.schedule(ms(2), Action::Crash(C));
    let recs = run(s).1;
    let text = json(&recs);
    let back: Vec<Record<Probe>> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json(&back), text);
    assert!(text.contains(r#""kind":"send""#) && text.contains(r#""msg":{"Ping":0}"#));
}

/// `Event::kind_name` and the other accessors agree with what a trace file says, for every
/// record kind: readers and views rely on them instead of re-reading the JSON.
#[test]
fn event_accessors_agree_with_the_json_of_every_kind() {
    let mut s = sim(2, LinkConfig::default());
    s.add_invariant(Box::new(NoSeven));
    s.schedule(
        ms(0),
        Action::AddRule(FaultRule::new(RuleAction::Duplicate {
            after: Duration::from_millis(1),
        })),
    );
    s.schedule(ms(20), Action::Command(A, Cmd::Send(1, 7)));
    s.schedule(ms(1), Action::Command(A, Cmd::Send(9, 1)));
    s.schedule(ms(1), Action::Command(A, Cmd::Arm(1)));
    s.schedule(ms(5), Action::Crash(C));
    let recs = run(s).1;
    let mut kinds = std::collections::BTreeSet::new();
    for r in &recs {
        let v: serde_json::Value = serde_json::to_value(r).unwrap();
        assert_eq!(v["kind"], r.event.kind_name(), "{v}");
        assert_eq!(v["id"].as_u64(), r.event.msg_id().map(|id| id.0), "{v}");
        let link = r.event.link().map(|(f, t)| (f.to_string(), t.to_string()));
        let json_link = v["from"].as_str().zip(v["to"].as_str());
        assert_eq!(
            json_link.map(|(f, t)| (f.to_string(), t.to_string())),
            link,
            "{v}"
        );
        if let Event::Fault { fault } = &r.event {
            let named = v["fault"]
                .as_object()
                .and_then(|f| f.values().next()?.as_str());
            assert_eq!(fault.node(), named, "{v}");
        }
        kinds.insert(r.event.kind_name());
    }
    let all: std::collections::BTreeSet<&str> = EVENT_KINDS.iter().copied().collect();
    assert_eq!(kinds, all, "the run shows every kind");
}

/// `run_until` stops at its deadline even when stale timer events sit before the next real
/// event: a pause scheduled right after the deadline lands exactly there.
#[test]
fn run_until_never_steps_past_its_deadline() {
    let mut s = sim(1, LinkConfig::default());
    s.schedule(ms(0), Action::Command(A, Cmd::Arm(500)));
    s.schedule(ms(10), Action::Command(A, Cmd::Disarm));
    s.schedule(ms(1_019), Action::Command(B, Cmd::Count));
    s.run_until(ms(999));
    assert!(s.now() <= ms(999), "stopped at {}", s.now());
    s.schedule(ms(1_000), Action::Pause(B));
    let recs = run(s).1;
    let pause = recs
        .iter()
        .find(|r| {
            matches!(
                r.event,
                Event::Fault {
                    fault: Fault::Pause(_)
                }
            )
        })
        .unwrap();
    assert_eq!(pause.time, ms(1_000));
}

/// A run built at one seed and reseeded before its first step is the run built at the other
/// seed, record for record (what a search does instead of building each seed's run).
#[test]
fn a_reseeded_run_is_the_run_of_its_new_seed() {
    let lossy = LinkConfig {
        loss: Ratio::new(1, 4).unwrap(),
        latency: Latency::Uniform {
            min: Duration::from_millis(1),
            max: Duration::from_millis(10),
        },
        ..LinkConfig::default()
    };
    let mut built = sim(7, lossy);
    chatty(&mut built, 30);
    let mut reseeded = sim(0, lossy);
    chatty(&mut reseeded, 30);
    let other = json(&run(reseeded.clone()).1);
    reseeded.reseed(7);
    let want = json(&run(built).1);
    assert_eq!(json(&run(reseeded).1), want);
    assert_ne!(other, want, "the seed matters to this run");
}

/// Notes who it is and who a message came from: for twins.
#[derive(Clone, Debug, Hash, Default)]
struct Witness;

impl Actor for Witness {
    type Msg = Msg;
    type Timer = ();
    type Note = (u32, u32, u32);
    type Command = (u32, u32);
    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: Msg) {
        let Msg::Ping(n) = msg;
        ctx.note((ctx.id().0, from.0, n));
    }
    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: ()) {}
    fn on_command(&mut self, ctx: &mut Context<'_, Self>, (to, n): (u32, u32)) {
        ctx.send(NodeId(to), Msg::Ping(n));
    }
}

/// a, b, c and (with `twin`) b's twin "b2"; each step sends one ping at 1 ms intervals.
fn twins_run(twin: bool, steps: Vec<Action<(u32, u32)>>) -> Vec<Record<Witness>> {
    let mut s = Sim::new(SimConfig::seeded(1));
    for name in ["a", "b", "c"] {
        s.add_node(name, Witness);
    }
    if twin {
        let b2 = s.add_twin("b2", Witness, B);
        assert_eq!((b2, s.identity(b2), s.identity(B)), (NodeId(3), B, B));
    }
    for (i, step) in steps.into_iter().enumerate() {
        s.schedule(ms(i as u64), step);
    }
    s.set_trace(TraceMode::Memory(Vec::new()));
    s.run();
    s.take_records()
}

/// Notes as (node name, who it is, who sent, ping).
fn heard(records: &[Record<Witness>]) -> Vec<(String, u32, u32, u32)> {
    trace::notes(records)
        .map(|(_, node, &(me, from, n))| (node.to_string(), me, from, n))
        .collect()
}

/// A twin shares its node's identity: what is sent to b reaches both b and its twin (each copy
/// with its own message id), what the twin sends arrives from b, and the twin sees b's id as its
/// own. The control without a twin delivers once.
#[test]
fn a_twin_shares_its_nodes_identity() {
    let steps = || {
        vec![
            Action::Command(A, (1, 7)),
            Action::Command(NodeId(3), (0, 8)),
            Action::Command(NodeId(3), (1, 9)),
        ]
    };
    let twinned = twins_run(true, steps());
    assert_eq!(
        heard(&twinned),
        [
            ("b".into(), 1, 0, 7),
            ("b2".into(), 1, 0, 7),
            ("a".into(), 0, 1, 8),
            ("b2".into(), 1, 1, 9),
            ("b".into(), 1, 1, 9),
        ],
        "the twin's own send to b loops back to it at once and reaches b over the network"
    );
    let sends: Vec<(MsgId, &str)> = twinned
        .iter()
        .filter_map(|r| match &r.event {
            Event::Send { id, to, .. } => Some((*id, &**to)),
            _ => None,
        })
        .collect();
    assert_eq!(&sends[..2], [(MsgId(1), "b"), (MsgId(2), "b2")]);
    let control: Vec<Record<Witness>> = {
        let mut s = Sim::new(SimConfig::seeded(1));
        for name in ["a", "b", "c"] {
            s.add_node(name, Witness);
        }
        s.schedule(ms(0), Action::Command(A, (1, 7)));
        s.set_trace(TraceMode::Memory(Vec::new()));
        s.run();
        s.take_records()
    };
    assert_eq!(heard(&control), [("b".into(), 1, 0, 7)]);
}

/// A partition separates twins like any two nodes: with b on a's side and its twin on c's,
/// a's ping to b reaches b only and c's reaches the twin only.
#[test]
fn a_partition_separates_twins() {
    let recs = twins_run(
        true,
        vec![
            Action::Partition(vec![vec![A, B], vec![C, NodeId(3)]]),
            Action::Command(A, (1, 1)),
            Action::Command(C, (1, 2)),
        ],
    );
    assert_eq!(
        heard(&recs),
        [("b".into(), 1, 0, 1), ("b2".into(), 1, 2, 2)]
    );
    let cut: Vec<(&str, &str)> = recs
        .iter()
        .filter_map(|r| match &r.event {
            Event::Drop {
                from, to, reason, ..
            } if *reason == DropReason::Partition => Some((&**from, &**to)),
            _ => None,
        })
        .collect();
    assert_eq!(cut, [("a", "b2"), ("c", "b")]);
}

/// Arms timer 1 for 30 ms, then timer 2 for 10 ms, and notes each as it fires.
#[derive(Clone, Debug, Hash, Default)]
struct TwoTimers;

impl Actor for TwoTimers {
    type Msg = Msg;
    type Timer = u8;
    type Note = u8;
    type Command = ();
    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        ctx.set_timer(1, Duration::from_millis(30));
        ctx.set_timer(2, Duration::from_millis(10));
    }
    fn on_message(&mut self, _ctx: &mut Context<'_, Self>, _from: NodeId, _msg: Msg) {}
    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: u8) {
        ctx.note(timer);
    }
}

/// Timers that fall due while a node is paused fire on resume in the order they fell due, not
/// the order they were armed: a paused leader finishes the work it was in before its later
/// deadline fires. The control without a pause fires them at their times, in the same order.
#[test]
fn overdue_timers_fire_in_the_order_they_fell_due() {
    let fired = |pause: bool| {
        let mut s = Sim::new(SimConfig::seeded(1));
        s.add_node("a", TwoTimers);
        if pause {
            s.schedule(ms(5), Action::Pause(A));
            s.schedule(ms(50), Action::Resume(A));
        }
        s.set_trace(TraceMode::Memory(Vec::new()));
        s.run();
        let records = s.take_records();
        trace::notes(&records)
            .map(|(t, _, n)| (t.as_millis(), *n))
            .collect::<Vec<_>>()
    };
    assert_eq!(fired(false), [(10, 2), (30, 1)]);
    assert_eq!(fired(true), [(50, 2), (50, 1)]);
}

/// An invariant that remembers how many notes it read: its copies must carry that count.
#[derive(Clone, Debug, Default)]
struct CountNotes(u64);
impl Invariant<Probe> for CountNotes {
    fn name(&self) -> &'static str {
        "count-notes"
    }
    fn observe(&mut self, r: &Record<Probe>) -> Result<(), Broken> {
        if matches!(r.event, Event::Note { .. }) {
            self.0 += 1;
        }
        Ok(())
    }
    fn memory(&self, state: &mut dyn std::hash::Hasher) {
        state.write_u64(self.0);
    }
}

/// Goal: a checker copied into another (a search reusing a run per seed) copies each
/// invariant into the box already there. Method: `CloneInto` between two boxed invariants of
/// one type and of two; then two checkers, the source ahead, copied with `clone_from`.
/// Proves: the same type is copied in place (same box, the source's memory), another type is
/// refused; a checker's copy carries the memory; a checker of other invariants is replaced.
#[test]
fn a_checker_copies_its_invariants_into_the_boxes_it_has() {
    let source: Box<dyn Invariant<Probe>> = Box::new(CountNotes(5));
    let mut target: Box<dyn Invariant<Probe>> = Box::new(CountNotes(0));
    let place = &*target as *const dyn Invariant<Probe> as *const u8;
    assert!(
        source
            .as_ref()
            .clone_into_any(&mut *target as &mut dyn std::any::Any)
    );
    assert_eq!(
        &*target as *const dyn Invariant<Probe> as *const u8, place,
        "the same box"
    );
    assert_eq!(format!("{target:?}"), "CountNotes(5)");
    let mut other: Box<dyn Invariant<Probe>> = Box::new(NoSeven);
    assert!(
        !source
            .as_ref()
            .clone_into_any(&mut *other as &mut dyn std::any::Any)
    );

    let mut ahead = Checker::new(vec![Box::new(CountNotes(5)), Box::new(NoSeven)]);
    let mut behind = Checker::new(vec![Box::new(CountNotes(0)), Box::new(NoSeven)]);
    let memory = |c: &Checker<Probe>| {
        let mut h = sim_core::hash::BufferHasher::default();
        c.memory(&mut h);
        std::hash::Hasher::finish(&h)
    };
    assert_ne!(memory(&ahead), memory(&behind));
    behind.clone_from(&ahead);
    assert_eq!(memory(&ahead), memory(&behind), "the memory copied");
    ahead = Checker::new(vec![Box::new(NoSeven)]);
    behind.clone_from(&ahead);
    assert_eq!(
        memory(&behind),
        memory(&ahead),
        "other invariants: replaced"
    );
}
