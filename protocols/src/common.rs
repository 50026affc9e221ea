//! What several protocols need alike and no protocol owns: a read-only setup shared by every
//! node and left out of state hashes, and the config check of node names. Not a protocol:
//! protocols still never depend on each other.

use sim_core::ConfigProblem;

/// The most nodes a protocol config may describe (servers, replicas and clients together): a
/// file bounds what it makes the simulator hold.
pub const MAX_NODES: usize = 64;
/// The longest timing a config may set, in ms: one hour.
pub const MAX_MS: u64 = 3_600_000;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// A config's read-only facts, shared by every node of a run and left out of a state's hash
/// and equality (they are the same in every state).
pub struct Shared<T>(pub Arc<T>);

impl<T> Shared<T> {
    /// `value`, to be shared.
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::hash::Hash for Shared<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, _: &Shared<T>) -> bool {
        true
    }
}

impl<T> Eq for Shared<T> {}

impl<T> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Setup")
    }
}

/// Empty and repeated node names, each located at its quoted name; `roles` says which roles
/// must not share one ("the store, every relay and the resource").
pub fn name_problems(names: impl IntoIterator<Item = String>, roles: &str) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for name in names {
        if name.is_empty() {
            problems.push(ConfigProblem {
                locate: Some("\"\"".into()),
                message: "a node has an empty name: give every node a name".into(),
            });
        } else if !seen.insert(name.clone()) {
            problems.push(ConfigProblem {
                locate: Some(format!("\"{name}\"")),
                message: format!("\"{name}\" is used twice: {roles} need their own names"),
            });
        }
    }
    problems
}

/// An invariant's explanation in English (what the trace records) and in the course's Spanish
/// (what `--lang es` prints).
pub fn broke(en: String, es: String) -> sim_core::Broken {
    sim_core::Broken::from(en).also(traces::Lang::Es.tag(), es)
}

/// Several explanations as one, each language's texts joined with "; ".
pub fn broke_all(list: Vec<sim_core::Broken>) -> sim_core::Broken {
    let tag = traces::Lang::Es.tag();
    let en: Vec<&str> = list.iter().map(|b| b.text.as_str()).collect();
    let es: Vec<&str> = list.iter().map(|b| b.text_in(tag)).collect();
    broke(en.join("; "), es.join("; "))
}
