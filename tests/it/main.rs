//! dsim's integration tests: one binary (faster to build and link than one per file).
//!
//! - `architecture`: the crate layers, a kernel without protocols or languages, no hash maps.
//! - `cli`: the `dsim` binary's behaviour: exit codes, output, files written.
//! - `bad_input`: every file of `tests/bad-input/` gives exit 2 at the line and column it states.
//! - `course`: the course scenarios edited as a teacher would (a line, a knob).
//! - `bundled`: every scenario file is bundled, validates and passes.
//! - `docs`: every `dsim` command the docs print runs as printed.
//! - `determinism`: same scenario and seed, same bytes; another seed, another trace.
//! - `ring`: `dsim ring` reproduces the course's partitioning tables exactly.
//! - `spanish`: `--lang es` output of every run, sweep, check, view and ring experiment holds
//!   no English prose.
//! - `sweep`: many seeds and variants, identical at any thread count.
//! - `view`: `dsim view`, `check`, `replay`, `diff` and `run --view` from the command line.
//! - `viewer`: the HTML viewer and the Mermaid output in headless Chromium.
//! - `viewer_lesson`: the viewer's drawing, panel, Spanish and bounded DOM on long runs.
//! - `exhaustive`: `dsim explore --exhaustive`: pinned state counts, sound merging, replays.
//! - `distributed`: the exhaustive search on timely dataflow, threads and processes, as local.
//! - `exhaustive_disk`: its frontier on disk: what memory finds, checkpoints, resume, Ctrl-C.
//! - `properties`: safety under generated schedules; a buggy protocol caught and shrunk.
//! - `seeds`: every bundled scenario over seeds 0..8 breaks no invariant it does not expect.
//! - `lease`: each lease bug knob caught with its control; every lease scenario over 100 seeds.
//! - `multipaxos`: the course scenarios in both languages, each knob found by random and
//!   exhaustive search, the pinned count, the cost table's counts.
//! - `raft_kv`: the key-value store on Raft: the stale read caught, each knob found.
//! - `pbft`: each PBFT bug knob found by `dsim explore`; safety under random Byzantine replicas.
//! - `kinds`: message kinds are the variants' names, for every protocol.
//! - `fuzz`: mutated scenarios and traces never panic and are refused with a position.
//! - `golden`: every bundled scenario's story snapshot with its trace digest, and the small
//!   ones' whole traces (`cargo insta review`, `UPDATE_GOLDEN=1`).

mod architecture;
mod bad_input;
mod bundled;
mod cli;
mod course;
mod deploy;
mod determinism;
mod distributed;
mod docs;
mod exhaustive;
mod exhaustive_disk;
mod explore;
mod fuzz;
mod golden;
mod kinds;
mod lease;
mod multipaxos;
mod multipaxos_kv;
mod pbft;
mod properties;
mod raft_kv;
mod raft_log;
mod ring;
mod seeds;
mod spanish;
mod streaming;
mod support;
mod sweep;
mod view;
mod viewer;
mod viewer_lesson;
