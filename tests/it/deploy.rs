//! The batch-system files in `deploy/`, run as their users run them: the Slurm array script
//! once per task, each a process of its own, then its merge step; the Kubernetes Jobs' shell
//! commands with each pod's index.

use crate::support::{root, scratch};
use std::process::Command;

/// The search both runs make: small enough for a test, a bug the search finds.
const SEEDS: &str = "0..9000";
const EXTRA: &str = "--bug forget_promise_on_restart --crashes 1 --window-ms 50";

fn single_run(dir: &std::path::Path) -> (Option<i32>, String) {
    let found = dir.join("single.ron");
    let out = Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(["explore", "search/paxos-swarm"])
        .args(EXTRA.split(' '))
        .args(["--seeds", SEEDS, "--out"])
        .arg(&found)
        .output()
        .unwrap();
    (
        out.status.code(),
        std::fs::read_to_string(&found).unwrap_or_default(),
    )
}

// Goal: the Slurm array script does what it says. Method: deploy/slurm/explore-array.sh run as
// three array tasks (SLURM_ARRAY_TASK_ID 0, 1, 2), each a process of its own, then as the merge
// job, on a Paxos search that finds a counterexample. Proves: every task writes its shard, the
// merge exits 0 (a find is a result) and writes the very counterexample one run over the whole
// range writes.
#[test]
fn the_slurm_array_script_merges_to_the_single_run() {
    let dir = scratch("deploy-slurm");
    let script = root().join("deploy/slurm/explore-array.sh");
    let run = |envs: &[(&str, String)]| {
        let out = Command::new("bash")
            .arg(&script)
            .current_dir(root())
            .env("DSIM", env!("CARGO_BIN_EXE_dsim"))
            .env("SCENARIO", "search/paxos-swarm")
            .env("SEEDS", SEEDS)
            .env("EXTRA", EXTRA)
            .env("SHARDS", "3")
            .env("OUT", &dir)
            .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{envs:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for task in 0..3 {
        run(&[("SLURM_ARRAY_TASK_ID", task.to_string())]);
        assert!(dir.join(format!("shard-{task}.json")).exists());
    }
    run(&[("MERGE", "1".to_string())]);
    let merged = std::fs::read_to_string(dir.join("found.ron")).unwrap();
    let (code, single) = single_run(&dir);
    assert_eq!(code, Some(1), "the single run finds the bug");
    assert_eq!(merged, single);
}

// Goal: the Kubernetes Jobs' commands are the ones that work. Method: the shell command of
// deploy/kubernetes/explore-indexed-job.yaml run once per index (0..3) with the shared volume a
// scratch folder, then the merge Job's command. Proves: both files parse as a user's shell
// would run them and hand over shard files the merge accepts.
#[test]
fn the_kubernetes_jobs_commands_run_and_merge() {
    let dir = scratch("deploy-kubernetes");
    let command = |file: &str| -> String {
        let text = std::fs::read_to_string(root().join("deploy/kubernetes").join(file)).unwrap();
        let start = text.find("- >-").expect("a folded shell command") + 4;
        let body: Vec<&str> = text[start..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("              "))
            .map(str::trim)
            .collect();
        body.join(" ")
    };
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_dsim"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out_dir = dir.to_str().unwrap();
    let shard = command("explore-indexed-job.yaml").replace("/out", out_dir);
    // A smaller range than the file's million seeds, the rest as written.
    let shard = shard.replace("--seeds 0..1000000", "--seeds 0..8192");
    assert!(
        shard.contains("dsim explore search/") && shard.contains("--seeds 0..8192"),
        "{shard}"
    );
    for index in 0..4 {
        let line = shard.replace("$(JOB_COMPLETION_INDEX)", &index.to_string());
        let out = Command::new("sh")
            .args(["-c", &line])
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let merge = command("explore-merge-job.yaml").replace("/out", out_dir);
    assert!(merge.contains("dsim explore --merge"), "{merge}");
    let out = Command::new("sh")
        .args(["-c", &merge])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{merge}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
