//! The rules of ARCHITECTURE.md that a machine can check: which crate may depend on which, a
//! kernel that knows no protocol and no language, no randomly ordered collections anywhere.

use crate::support::root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's crates bottom up: each may depend only on crates before it.
const LAYERS: &[(&str, &str)] = &[
    ("sim-core", "sim-core/Cargo.toml"),
    ("traces", "traces/Cargo.toml"),
    ("protocols", "protocols/Cargo.toml"),
    ("scenarios", "scenarios/Cargo.toml"),
    ("dsim-timely", "distributed/Cargo.toml"),
    ("dsim-bench", "bench/Cargo.toml"),
    ("dsim", "Cargo.toml"),
];

/// The workspace crates named in a manifest's dependency sections: `[dependencies]`,
/// `[dev-dependencies]`, `[build-dependencies]`, their `[target.'...'.*]` forms, and
/// `[dependencies.NAME]` tables.
fn workspace_deps(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let ours: BTreeSet<&str> = LAYERS.iter().map(|(name, _)| *name).collect();
    let mut in_deps = false;
    let mut found = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let parts: Vec<&str> = section.rsplitn(2, '.').collect();
            let kinds = ["dependencies", "dev-dependencies", "build-dependencies"];
            in_deps = kinds
                .iter()
                .any(|k| section == *k || section.ends_with(&format!(".{k}")));
            // `[dependencies.NAME]`: a table for one dependency.
            if parts.len() == 2 && kinds.iter().any(|k| parts[1].ends_with(k)) {
                if ours.contains(parts[0]) {
                    found.insert(parts[0].to_string());
                }
                in_deps = false;
            }
            continue;
        }
        let name = line.split(['.', '=', ' ']).next().unwrap_or("");
        if in_deps && ours.contains(name) {
            found.insert(name.to_string());
        }
    }
    found
}

// Goal: data flows one way (kernel, story, protocols, scenarios, binary). Method: read every
// manifest's dependency sections. Proves: no crate depends on one above it, so no crate cycle
// and no kernel that knows a protocol.
#[test]
fn crates_depend_only_on_the_layers_below() {
    for (i, (name, manifest)) in LAYERS.iter().enumerate() {
        let below: BTreeSet<String> = LAYERS[..i].iter().map(|(n, _)| n.to_string()).collect();
        let deps = workspace_deps(&root().join(manifest));
        let wrong: Vec<&String> = deps.difference(&below).collect();
        assert!(
            wrong.is_empty(),
            "{name} depends on {wrong:?}, a crate at or above its layer"
        );
    }
    assert!(workspace_deps(&root().join("sim-core/Cargo.toml")).is_empty());
    // The distributed engine stands on the kernel alone, and only the binary builds it.
    let timely = workspace_deps(&root().join("distributed/Cargo.toml"));
    assert_eq!(timely, BTreeSet::from(["sim-core".to_string()]));
    for (name, manifest) in LAYERS.iter().filter(|(n, _)| *n != "dsim") {
        let deps = workspace_deps(&root().join(manifest));
        assert!(!deps.contains("dsim-timely"), "{name} builds timely");
    }
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    crate::support::files_ending(dir, "rs")
}

/// The code of a file without its comments (line comments and doc comments), line by line.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let code = match line.find("//") {
                Some(at) => &line[..at],
                None => line,
            };
            (!code.trim().is_empty()).then(|| (i + 1, code.to_string()))
        })
        .collect()
}

fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
}

// Goal: the kernel knows no protocol and no language. Method: every code line of sim-core (not
// comments) against protocol names and the story's vocabulary, and for non-ASCII text (the
// course's Spanish). Proves: protocols and stories live outside the kernel.
#[test]
fn sim_core_names_no_protocol_and_no_language() {
    let banned = [
        "paxos",
        "raft",
        "pbft",
        "lease",
        "token_ring",
        "tokenring",
        "lang",
        "narrate",
        "spanish",
        "story",
    ];
    let mut found = Vec::new();
    for file in rust_files(&root().join("sim-core")) {
        for (line, code) in code_lines(&file) {
            let bad = words(&code).find(|w| banned.contains(&w.to_ascii_lowercase().as_str()));
            if let Some(word) = bad {
                found.push(format!("{}:{line}: {word}", file.display()));
            }
            if !code.is_ascii() {
                found.push(format!("{}:{line}: non-ASCII text", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "sim-core knows a protocol or a language:\n{}",
        found.join("\n")
    );
}

// Goal: nothing iterates in a per-process random order. Method: every code line of the
// workspace (clippy.toml bans the types too, but only where clippy runs). Proves: no std hash
// collection anywhere; BTreeMap/BTreeSet or Vec instead.
#[test]
fn no_randomly_ordered_collections_anywhere() {
    let banned = [concat!("Hash", "Map"), concat!("Hash", "Set")];
    let mut found = Vec::new();
    for file in rust_files(&root()) {
        for (line, code) in code_lines(&file) {
            if let Some(word) = words(&code).find(|w| banned.contains(w)) {
                found.push(format!("{}:{line}: {word}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "randomly ordered collections:\n{}",
        found.join("\n")
    );
}

/// The module path of a source file of the crate rooted at `src`: `cmd/run.rs` is `cmd::run`,
/// `ring/mod.rs` is `ring`, `lib.rs` and `main.rs` are the root (`""`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The modules of one crate and which of them each one uses (`crate::a::b` and `super::x`
/// paths), leaving out uses between a module and its own ancestors or descendants (a parent
/// declaring and re-exporting its children is structure, not a cycle).
fn module_uses(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files: Vec<PathBuf> = rust_files(src)
        .into_iter()
        .filter(|f| !f.strip_prefix(src).unwrap().starts_with("bin"))
        .collect();
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    let nested = |a: &str, b: &str| {
        a == b
            || b.is_empty()
            || a.is_empty()
            || a.starts_with(&format!("{b}::"))
            || b.starts_with(&format!("{a}::"))
    };
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let me = module_of(src, file);
        let parent = me
            .rsplit_once("::")
            .map_or(String::new(), |(p, _)| p.to_string());
        for (_, code) in code_lines(file) {
            let mut targets = Vec::new();
            for (prefix, base) in [("crate::", String::new()), ("super::", parent.clone())] {
                for (at, _) in code.match_indices(prefix) {
                    let path: Vec<&str> = code[at + prefix.len()..]
                        .split("::")
                        .map(|seg| {
                            seg.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                                .next()
                                .unwrap_or("")
                        })
                        .take_while(|seg| !seg.is_empty())
                        .collect();
                    // The longest prefix of the path that names a module.
                    let found = (1..=path.len()).rev().find_map(|k| {
                        let tail = path[..k].join("::");
                        let full = if base.is_empty() {
                            tail
                        } else {
                            format!("{base}::{tail}")
                        };
                        modules.contains(&full).then_some(full)
                    });
                    targets.extend(found);
                }
            }
            for t in targets {
                if !nested(&me, &t) {
                    uses.entry(me.clone()).or_default().insert(t);
                }
            }
        }
    }
    uses
}

/// Cycles that exist today and are being removed (none: issue 11 removed the last, between
/// `ring_store`'s node, coord and client). The test fails on any other cycle, and on one of
/// these once it is gone, so the list only shrinks.
const KNOWN_CYCLES: &[&str] = &[];

// Goal: no two modules of a crate need each other (rust-analyzer's rule: a module graph one
// can read bottom up). Method: each crate's `crate::` and `super::` paths as a graph, and its
// strongly connected components. Proves: every crate's modules form a DAG.
#[test]
fn no_module_imports_another_in_a_cycle() {
    let mut cycles = Vec::new();
    for src in [
        "sim-core/src",
        "traces/src",
        "protocols/src",
        "scenarios/src",
        "distributed/src",
        "src",
        "bench/src",
    ] {
        let uses = module_uses(&root().join(src));
        let mut graph = petgraph::graphmap::DiGraphMap::<&str, ()>::new();
        for (from, tos) in &uses {
            for to in tos {
                graph.add_edge(from.as_str(), to.as_str(), ());
            }
        }
        for component in petgraph::algo::tarjan_scc(&graph) {
            if component.len() > 1 {
                let mut names: Vec<&str> = component;
                names.sort();
                cycles.push(format!("{src}: {}", names.join(" <-> ")));
            }
        }
    }
    let new: Vec<&String> = cycles
        .iter()
        .filter(|c| !KNOWN_CYCLES.contains(&c.as_str()))
        .collect();
    assert!(new.is_empty(), "modules that import each other: {new:?}");
    for known in KNOWN_CYCLES {
        assert!(
            cycles.iter().any(|c| c == known),
            "{known} is gone: remove it from KNOWN_CYCLES"
        );
    }
}

// Goal: what several commands share lives in a module of its own (pictures in `chart`, files
// in `output`), never in one command that others reach into. Method: the binary's module
// graph. Proves: no module under `cmd::X` uses one under `cmd::Y`.
#[test]
fn no_command_imports_another() {
    let command = |module: &str| -> Option<String> {
        let rest = module.strip_prefix("cmd::")?;
        Some(rest.split("::").next().unwrap_or(rest).to_string())
    };
    let mut found = Vec::new();
    for (from, tos) in module_uses(&root().join("src")) {
        let Some(mine) = command(&from) else { continue };
        for to in tos {
            if command(&to).is_some_and(|theirs| theirs != mine) {
                found.push(format!("{from} uses {to}"));
            }
        }
    }
    assert!(found.is_empty(), "commands that import another: {found:?}");
}
