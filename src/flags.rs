//! Flag values that several commands share: the story's language, `--set KEY=VALUE` and
//! `--jobs N`.

use crate::exit::CliError;
use traces::Lang;

/// Parses `--lang`.
pub fn parse_lang(s: &str) -> Result<Lang, String> {
    match s {
        "en" => Ok(Lang::En),
        "es" => Ok(Lang::Es),
        _ => Err(format!("unknown language `{s}`: use `en` or `es`")),
    }
}

/// Splits `--set` flags into (key, value) pairs.
pub fn parse_sets(flags: &[String]) -> Result<Vec<(String, String)>, CliError> {
    flags
        .iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) => Ok((k.trim().to_string(), v.trim().to_string())),
            None => Err(CliError::bad_input(format!(
                "--set `{s}`: write KEY=VALUE, e.g. --set heartbeat_ms=20"
            ))),
        })
        .collect()
}

/// The scenario text with a row of (key, value) settings applied to its config.
pub fn apply_sets(text: &str, sets: &[(String, String)]) -> Result<String, CliError> {
    scenarios::vary::apply_sets(text, sets).map_err(CliError::bad_input)
}

/// The most worker threads `--jobs` may ask for.
pub const MAX_JOBS: usize = 256;

/// The worker pool `--jobs` asks for (default: every core), and its size.
pub fn worker_pool(jobs: Option<usize>) -> Result<(rayon::ThreadPool, usize), CliError> {
    if jobs.is_some_and(|j| j == 0 || j > MAX_JOBS) {
        return Err(CliError::bad_input(format!(
            "--jobs must be between 1 and {MAX_JOBS} (default: every core)"
        )));
    }
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CliError::bug(format!("cannot start {jobs} worker threads: {e}")))?;
    Ok((pool, jobs))
}
