//! Splitting one search among the jobs of a batch system, and joining their results.
//!
//! A search runs its seed range in batches of `BATCH` seeds; shard I of N takes the batches
//! whose index is I modulo N, so every shard's work is spread over the whole range. Each batch
//! is judged the same way whoever runs it, so the merged result is the single run's: without
//! --keep-going, the finding with the lowest first seed (the single run stops after the batch
//! holding it); with it, each invariant's finding with the lowest first seed, in that order.
//! A shard's --json output carries its counterexamples' text, which the merge writes, and with
//! --coverage the states each batch reached first, whose union the merge counts.

use super::{BATCH, Coverage, Execution, Found, Report, out_path, print};
use crate::exit::CliError;
use crate::output::write_atomically;
use crate::source::read_text;
use scenarios::coverage::StateSet;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Parses `--shard I/N` (I from 0, below N).
pub fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let expected = || format!("--shard {text:?}: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(expected)?;
    let (i, n): (u64, u64) = (
        i.trim().parse().map_err(|_| expected())?,
        n.trim().parse().map_err(|_| expected())?,
    );
    if n == 0 || i >= n || n > 100_000 {
        return Err(expected());
    }
    Ok((i, n))
}

/// Joins the shards' reports in `files` and writes the counterexamples under `out`.
pub fn merge(files: &[PathBuf], out: &Path, json: bool) -> Result<u8, CliError> {
    let mut reports = Vec::with_capacity(files.len());
    for file in files {
        let text = read_text(file)?;
        let report: Report = serde_json::from_str(&text).map_err(|e| {
            CliError::bad_input(format!(
                "{}:{}:{}: not the --json output of a `dsim explore --shard` run: {e}",
                file.display(),
                e.line(),
                e.column()
            ))
        })?;
        reports.push((file, report));
    }
    let (first_file, first) = &reports[0];
    let n = first.shard.map(|(_, n)| n).ok_or_else(|| {
        CliError::bad_input(format!(
            "{}: not a shard's output (it has no `shard`): run each job with --shard I/N --json",
            first_file.display()
        ))
    })?;
    let mut seen = vec![false; n as usize];
    for (file, r) in &reports {
        let same = r.scenario == first.scenario
            && r.seeds == first.seeds
            && r.bugs == first.bugs
            && r.sets == first.sets
            && r.faults == first.faults
            && r.keep_going == first.keep_going
            && r.coverage.is_some() == first.coverage.is_some();
        let Some((i, m)) = r.shard.filter(|_| same) else {
            return Err(CliError::bad_input(format!(
                "{}: a shard of another search than {} (scenario, seeds, bugs, sets, faults and \
                 --keep-going and --coverage must all be the same)",
                file.display(),
                first_file.display()
            )));
        };
        if m != n || seen[i as usize] {
            return Err(CliError::bad_input(format!(
                "{}: shard {i}/{m} is given twice or belongs to a split into other than {n}",
                file.display()
            )));
        }
        seen[i as usize] = true;
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(CliError::bad_input(format!(
            "shard {missing}/{n} is missing: a merge needs every shard's output"
        )));
    }
    let all: Vec<&Found> = reports.iter().flat_map(|(_, r)| &r.found).collect();
    let (start, end) = first.seeds;
    // The single run's findings: each invariant's earliest, in seed order (without
    // --keep-going, only the earliest of all).
    let mut earliest: BTreeMap<&str, &Found> = BTreeMap::new();
    for f in &all {
        let e = earliest
            .entry(&f.counterexample.finding.invariant)
            .or_insert(f);
        if f.first_seed < e.first_seed {
            *e = f;
        }
    }
    let mut chosen: Vec<&Found> = earliest.into_values().collect();
    chosen.sort_by_key(|f| f.first_seed);
    if !first.keep_going {
        chosen.truncate(1);
    }
    let searched = match chosen.first() {
        Some(f) if !first.keep_going => {
            let batch = (f.first_seed - start) / BATCH;
            end.min(start + (batch + 1) * BATCH) - start
        }
        _ => end - start,
    };
    let mut found = Vec::with_capacity(chosen.len());
    for f in chosen {
        let invariant = &f.counterexample.finding.invariant;
        let path = out_path(out, invariant, first.keep_going);
        let text = f.text.as_deref().ok_or_else(|| {
            CliError::bad_input(format!(
                "the shard that found {invariant} did not carry its counterexample's text"
            ))
        })?;
        write_atomically(&path, text)?;
        found.push(Found {
            kind: f.kind.clone(),
            file: path.display().to_string(),
            first_seed: f.first_seed,
            counterexample: f.counterexample.clone(),
            text: None,
        });
    }
    // The single run's swarm tally: every batch it searched, from whichever shard ran it.
    let swarm = first.swarm.as_ref().map(|_| {
        let mut rows = Vec::new();
        for (_, r) in &reports {
            for (batch, batch_rows) in &r.swarm_batches {
                if batch * BATCH < searched {
                    scenarios::swarm::add_tallies(&mut rows, batch_rows);
                }
            }
        }
        rows
    });
    let pct = first.pct.map(|_| {
        let mut walks = scenarios::pct::PctStats::default();
        for (_, r) in &reports {
            for (batch, w) in &r.pct_batches {
                if batch * BATCH < searched {
                    walks.add(*w);
                }
            }
        }
        walks
    });
    // The single run's coverage: each batch's states added in batch order, whichever shard
    // ran it (a shard's batch holds the states new to that shard, and its earlier batches
    // are earlier in the single run too, so the union after each batch is the same).
    let coverage = first.coverage.as_ref().map(|_| {
        let mut batches: Vec<(u64, &Vec<u64>)> = reports
            .iter()
            .flat_map(|(_, r)| r.coverage_batches.iter().map(|(b, s)| (*b, s)))
            .filter(|(b, _)| b * BATCH < searched)
            .collect();
        batches.sort_by_key(|(b, _)| *b);
        let mut states = StateSet::new();
        let mut curve = Vec::with_capacity(batches.len());
        for (batch, fresh) in batches {
            states.insert_sorted(fresh);
            curve.push((searched.min((batch + 1) * BATCH), states.len()));
        }
        Coverage {
            distinct_states: states.len(),
            curve,
        }
    });
    let merged = Report {
        scenario: first.scenario.clone(),
        seeds: first.seeds,
        bugs: first.bugs.clone(),
        sets: first.sets.clone(),
        faults: first.faults,
        keep_going: first.keep_going,
        shard: None,
        coverage,
        coverage_batches: Vec::new(),
        enumerated: first.enumerated,
        swarm,
        swarm_batches: Vec::new(),
        pct,
        pct_batches: Vec::new(),
        seeds_searched: searched,
        found,
        execution: Execution { jobs: n as usize },
    };
    print(&merged, json)
}
