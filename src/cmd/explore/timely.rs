//! `dsim explore --exhaustive --engine timely`: breadth first on timely dataflow (the
//! `dsim-timely` crate), over worker threads and processes; the report and the files are
//! the single-process search's, written by process 0.

use super::ExploreArgs;
use crate::exit::CliError;
use scenarios::exhaustive::{Outcome, Settings};
use scenarios::registry::LoadedScenario;
use sim_core::exhaustive::Stats;
use std::sync::Arc;

/// Which engine runs an exhaustive search (`--engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// This process's threads (`--jobs`), the frontier in memory or on disk.
    #[default]
    Local,
    /// Timely dataflow: `--workers` threads in each of `--processes` processes.
    Timely,
}

/// The most worker threads or processes a search may ask for.
const MOST: usize = 1024;

/// Runs the search of `loaded` (the file `name`, its text with the flags' settings applied
/// being `text`) on timely. `None` in a process other than 0, which has nothing to report.
pub fn search(
    args: &ExploreArgs,
    loaded: &dyn LoadedScenario,
    name: &str,
    text: &str,
    settings: &Settings,
    origin: &str,
    progress: Arc<dyn Fn(&Stats) + Send + Sync>,
) -> Result<Option<Outcome>, CliError> {
    if args.dfs || args.frontier != super::frontier::FrontierMode::Auto {
        return Err(CliError::bad_input(
            "--engine timely searches breadth first, its frontier in its workers' memory: \
             leave out --dfs and --frontier",
        ));
    }
    if args.checkpoint.is_some() || args.resume.is_some() || args.work_dir.is_some() {
        return Err(CliError::bad_input(
            "--engine timely does not checkpoint yet: --checkpoint, --resume and --work-dir \
             are the local engine's",
        ));
    }
    for (flag, n) in [("--workers", args.workers), ("--processes", args.processes)] {
        if n == 0 || n > MOST {
            return Err(CliError::bad_input(format!("{flag} {n}: give 1 to {MOST}")));
        }
    }
    if args.process >= args.processes {
        return Err(CliError::bad_input(format!(
            "--process {}: with --processes {} it is 0 to {}",
            args.process,
            args.processes,
            args.processes - 1
        )));
    }
    let cluster = match &args.hostfile {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| CliError::io(file, e))?;
            let hosts: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect();
            if hosts.len() != args.processes {
                return Err(CliError::bad_input(format!(
                    "{}: {} addresses for --processes {}; write one host:port a line, in \
                     process order",
                    file.display(),
                    hosts.len(),
                    args.processes
                )));
            }
            dsim_timely::Cluster {
                workers: args.workers,
                process: args.process,
                hosts,
            }
        }
        None => dsim_timely::Cluster::localhost(args.workers, args.processes, args.process),
    };
    let (file, text_owned, each) = (name.to_string(), text.to_string(), settings.clone());
    let make: dsim_timely::MakeSearchable = Arc::new(move || {
        let protocol = scenarios::registry::protocol_for(&file, &text_owned)
            .map_err(|_| format!("{file}: not a scenario"))?;
        let loaded = protocol
            .load(&file, &text_owned)
            .map_err(|_| format!("{file}: does not load"))?;
        loaded.searchable(&each)
    });
    let bounds = dsim_timely::Bounds {
        max_depth: settings.max_depth,
        max_states: settings.max_states,
        keep_going: settings.keep_going,
    };
    // Refusals (a file an untimed search cannot take) before any worker starts.
    loaded
        .searchable(settings)
        .map_err(|why| CliError::bad_input(format!("{name}: {why}")))?;
    let report = dsim_timely::explore(make, &cluster, bounds, progress)
        .map_err(|why| CliError::bad_input(format!("{name}: the timely search: {why}")))?;
    report
        .map(|report| loaded.exhaustive_outcome(settings, report, origin))
        .transpose()
        .map_err(|why| CliError::bad_input(format!("{name}: {why}")))
}
