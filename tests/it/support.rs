//! Helpers shared by the integration tests: running the binary, finding the workspace.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `dsim` with `args` from the workspace root.
pub fn dsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(args)
        .current_dir(root())
        .env_remove("RUST_LOG")
        .output()
        .expect("the dsim binary runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every `.ron` file under `dir`, sorted.
pub fn ron_files(dir: &Path) -> Vec<PathBuf> {
    files_ending(dir, "ron")
}

/// Every file named `*.EXT` under `dir` (build output, `node_modules` and `.git` skipped),
/// sorted.
pub fn files_ending(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let skip = p
                .file_name()
                .is_some_and(|n| n == "target" || n == "node_modules" || n == ".git");
            if p.is_dir() && !skip {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The trace text of a bundled scenario's run at its own seed.
pub fn bundled_trace(b: &scenarios::bundled::Bundled) -> String {
    let protocol = scenarios::registry::protocol_for(b.name, b.source).unwrap();
    let options = scenarios::RunOptions {
        keep_trace: true,
        ..scenarios::RunOptions::default()
    };
    let result = protocol.run(b.name, b.source, &options).unwrap();
    result.trace.expect("a kept trace")
}

/// A fresh scratch directory for one test, emptied first: a run that failed half-way (a
/// read-only file left behind) never leaves state for the next one.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
