//! The bad-input corpus: each file states, in `// expect: LINE:COL text` comments, the problems
//! `dsim validate` must report. Goal: bad input always gets exit 2 with a located message and
//! never a panic. Method: run the binary on each file and match every stated position and text.

use crate::support::{dsim, ron_files, root, stderr};

#[test]
fn every_bad_file_is_refused_with_its_positions() {
    let files = ron_files(&root().join("tests/bad-input"));
    assert!(files.len() >= 8, "the corpus is in place");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let out = dsim(&["validate", &rel]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{rel}: exit 2 expected\n{err}");
        assert!(!err.contains("panicked"), "{rel} panicked:\n{err}");
        let expected: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("// expect: "))
            .collect();
        assert!(!expected.is_empty(), "{rel} states what it expects");
        for e in expected {
            let (pos, what) = e.split_once(' ').unwrap();
            assert!(
                err.contains(&format!("{rel}:{pos}\n")),
                "{rel}: expected a problem at {pos}\n{err}"
            );
            assert!(err.contains(what), "{rel}: expected {what:?}\n{err}");
        }
    }
}

/// A file that does not exist and a name that is not bundled: exit 2 with a way forward.
#[test]
fn a_missing_scenario_says_how_to_find_one() {
    let out = dsim(&["run", "paxos/lost-acepts"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dsim list"), "{}", stderr(&out));
}

/// Bad flags are usage errors (exit 2), not crashes.
#[test]
fn bad_flags_are_usage_errors() {
    let out = dsim(&["run", "demo/token-ring", "--lang", "fr"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("use `en` or `es`"));
    let out = dsim(&["run", "demo/token-ring", "--seed", "minus-one"]);
    assert_eq!(out.status.code(), Some(2));
}
