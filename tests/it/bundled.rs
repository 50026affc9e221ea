//! Bundled scenarios: every scenario file in the repository ships in the binary, validates,
//! and passes its own expectations (a teaching counterexample passes by showing its violation).

use crate::support::{dsim, ron_files, root, stdout};
use scenarios::bundled::BUNDLED;

#[test]
fn every_scenario_file_is_bundled() {
    let dir = root().join("scenarios");
    let mut files: Vec<String> = ["course", "demo", "search", "models"]
        .iter()
        .flat_map(|d| ron_files(&dir.join(d)))
        .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut bundled: Vec<String> = BUNDLED.iter().map(|b| b.path.to_string()).collect();
    bundled.sort();
    assert_eq!(
        files, bundled,
        "add new scenario files to scenarios/src/bundled.rs"
    );
}

#[test]
fn every_bundled_scenario_passes() {
    for b in BUNDLED {
        let out = dsim(&["run", b.name]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{} failed:\n{}",
            b.name,
            stdout(&out)
        );
        assert!(stdout(&out).contains("PASSED"));
    }
}

/// `dsim list` names every bundled scenario with its description.
#[test]
fn list_shows_every_bundled_scenario() {
    let out = stdout(&dsim(&["list"]));
    for b in BUNDLED {
        assert!(out.contains(b.name), "{} missing from:\n{out}", b.name);
    }
    assert!(!out.contains("does not validate"), "{out}");
}

/// The format reference's big example uses every step; it must stay valid as the format moves.
#[test]
fn the_format_reference_example_validates() {
    let doc = std::fs::read_to_string(crate::support::root().join("scenarios/FORMAT.md")).unwrap();
    let start = doc.find("```ron\n// What the scenario shows").unwrap() + "```ron\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let example = &doc[start..end];
    let protocol = scenarios::registry::protocol_for("FORMAT.md", example).unwrap();
    if let Err(problems) = protocol.validate("FORMAT.md", example) {
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        panic!(
            "the example in scenarios/FORMAT.md is invalid:\n{}",
            text.join("\n")
        );
    }
}
