//! A PCT search of a scenario file: each seed one PCT walk of its untimed run (see
//! [`sim_core::exhaustive::pct_walk`]), a violation written as a file whose schedule replays
//! the walk in time, as an exhaustive search writes its paths.

use crate::exhaustive::{path_finding, refusal, start};
use crate::explore::{Counterexample, Finding};
use crate::load::Prepared;
use serde::{Deserialize, Serialize};
use sim_core::Protocol;
use sim_core::exhaustive::{PctOptions, PctWalk, pct_walk};

pub use crate::explore::PctSettings;

/// The kernel's options for a walk of `settings`.
fn options(settings: PctSettings) -> PctOptions {
    PctOptions {
        depth: settings.depth,
        steps: settings.steps,
        max_moves: settings.max_moves,
    }
}

/// What the walks of a search were like: PCTCP's bound is stated for their width and length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PctStats {
    /// Walks taken.
    pub walks: u64,
    /// The most chains a walk made (at least its width).
    pub max_chains: usize,
    /// The most moves a walk took.
    pub max_moves: usize,
}

impl PctStats {
    /// Both searches' walks together.
    pub fn add(&mut self, other: PctStats) {
        self.walks += other.walks;
        self.max_chains = self.max_chains.max(other.max_chains);
        self.max_moves = self.max_moves.max(other.max_moves);
    }
}

/// PCT's k for `prep`: the length of one walk that never changes a priority (seed 0, depth
/// 1), at most `max_moves`; `Err` when the file cannot run untimed (see
/// [`crate::exhaustive::refusal`]).
pub fn estimate_steps<P: Protocol>(prep: &Prepared<P>, max_moves: u32) -> Result<u32, String> {
    if let Some(why) = refusal(prep) {
        return Err(why.replace("an exhaustive search", "a PCT search"));
    }
    let options = PctOptions {
        depth: 1,
        steps: 1,
        max_moves,
    };
    let walk = pct_walk(&start(prep), 0, &options);
    Ok((walk.path.len() as u32).max(1))
}

fn finding(walk: &PctWalk) -> Option<Finding> {
    let first = walk.violations.first()?;
    Some(Finding {
        invariant: first.invariant.clone(),
        message: first.message.clone(),
        step: walk.path.len() as u64,
        time_ns: 0,
    })
}

/// One PCT walk per seed of `seeds`: the findings in seed order, and what the walks were like.
pub fn probe<P: Protocol>(
    prep: &Prepared<P>,
    seeds: &[u64],
    settings: &PctSettings,
) -> (Vec<(u64, Finding)>, PctStats) {
    let root = start(prep);
    let mut stats = PctStats::default();
    let found = seeds
        .iter()
        .filter_map(|&seed| {
            let walk = pct_walk(&root, seed, &options(*settings));
            stats.add(PctStats {
                walks: 1,
                max_chains: walk.chains,
                max_moves: walk.path.len(),
            });
            finding(&walk).map(|f| (seed, f))
        })
        .collect();
    (found, stats)
}

/// The counterexample of what seed `seed`'s walk found: its path made timed and written.
pub fn counterexample<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    settings: &PctSettings,
    found: &Finding,
    origin: &str,
) -> Counterexample {
    let root = start(prep);
    let walk = pct_walk(&root, seed, &options(*settings));
    let by = format!(
        "dsim explore --strategy pct --depth {}, seed {seed}",
        settings.depth
    );
    let written = path_finding(prep, &root, &walk.path, &walk.violations, &by, origin);
    let found = finding(&walk).unwrap_or_else(|| found.clone());
    let unshrunk = Counterexample {
        seed,
        finding: found.clone(),
        recorded: walk.path.len(),
        choices: written.choices.clone(),
        shrink_runs: 0,
        replays: written.replays,
        text: written.text.clone(),
    };
    // The walk in time is an ordinary file with a schedule: shrink that schedule as a random
    // search's (what is left still breaks the same invariant when `dsim run` replays it).
    let Ok(mut timed) = crate::load::load::<P>(&prep.name, &written.body) else {
        return unshrunk;
    };
    let choices = timed.schedule.take().unwrap_or_default();
    timed.doc.description = prep.doc.description.clone();
    let origin = format!("{origin}; the PCT walk of seed {seed}, retimed");
    let mut shrunk = crate::explore::shrunk(
        &timed,
        timed.doc.seed,
        (Vec::new(), choices),
        &found,
        &origin,
        None,
    );
    shrunk.seed = seed;
    if shrunk.replays { shrunk } else { unshrunk }
}
