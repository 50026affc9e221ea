//! The second pass: every name, size and rule of a parsed scenario checked against its
//! protocol, each problem located in the text (see [`Checks::problem`]).

use super::caps;
use super::ron_errors::suggest;
use crate::diagnostic::{Diagnostic, Locator, SHOWN_PROBLEMS, closest};
use crate::schema::{At, LatencySpec, LinkSpec, Step};
use sim_core::{
    Action, Actor, Clock, Duration, FaultRule, Instant, Latency, LinkConfig, Message, NodeAction,
    NodeId, Protocol, RuleAction,
};

/// The byte offset, at or after `from`, where field `name` is written (`name` then optional
/// spaces and a `:`), outside strings and `//` comments.
pub(crate) fn field_offset(source: &str, name: &str, from: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let name = name.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    let mut block_depth = 0usize;
    while i < bytes.len() {
        let next = bytes.get(i + 1).copied();
        match bytes[i] {
            _ if block_depth > 0 => match (bytes[i], next) {
                (b'*', Some(b'/')) => {
                    block_depth -= 1;
                    i += 1;
                }
                (b'/', Some(b'*')) => {
                    block_depth += 1;
                    i += 1;
                }
                _ => {}
            },
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'/' if !in_string && next == Some(b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if !in_string && next == Some(b'*') => {
                block_depth = 1;
                i += 1;
            }
            // Byte comparisons: `i` need not be a char boundary (a comment or string may hold
            // any text), and a match of an ASCII name always starts on one.
            _ if !in_string && i >= from && bytes[i..].starts_with(name) => {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let word_start = before.is_none_or(|b| !b.is_ascii_alphanumeric() && b != b'_');
                let rest = bytes[i + name.len()..]
                    .iter()
                    .find(|&&b| b != b' ' && b != b'\t');
                if word_start && rest == Some(&b':') {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

pub(super) struct Checks<'a> {
    pub(super) file: &'a str,
    pub(super) source: &'a str,
    pub(super) locator: Locator<'a>,
    pub(super) problems: Vec<Diagnostic>,
    pub(super) nodes: Vec<String>,
    /// Where in the file the part being checked starts (a step, the network): problems found
    /// there are located from here, not at the first occurrence of their text in the file.
    pub(super) anchor: Option<usize>,
    /// Problems found past the first [`SHOWN_PROBLEMS`], counted and not located.
    pub(super) unshown: usize,
    /// Each node's id by name (the first of a name given twice), so a file's thousands of
    /// steps find their nodes in a lookup each.
    pub(super) index: std::collections::BTreeMap<String, u32>,
}

/// How many node names a message lists before saying how many more there are.
const LISTED_NODES: usize = 20;

impl Checks<'_> {
    pub(super) fn problem(&mut self, locate: Option<&str>, message: String, help: Option<String>) {
        if self.problems.len() >= SHOWN_PROBLEMS {
            self.unshown += 1;
            return;
        }
        let found = locate.and_then(|needle| {
            self.find(needle)
                .or_else(|| {
                    // A quoted name the file writes with escapes (`"a\nb"`, `"\""`).
                    let inner = needle.strip_prefix('"')?.strip_suffix('"')?;
                    self.find(&format!("{inner:?}"))
                })
                .or_else(|| {
                    // The step being checked is the place.
                    let at = self.anchor?;
                    Some(self.locator.position_of(at, "At("))
                })
                .or_else(|| {
                    // A value read from a bare word (`expect_violation: agreement`).
                    let inner = needle.strip_prefix('"')?.strip_suffix('"')?;
                    self.find(inner)
                })
                .or_else(|| {
                    // A quoted text however the file spells it (`"a\u{202e}b"`, a raw string).
                    let inner = needle.strip_prefix('"')?.strip_suffix('"')?;
                    let literal = super::literals::strings(self.source)
                        .find(|l| l.value(self.source).as_deref() == Some(inner))?;
                    let written = &self.source[literal.start..literal.end];
                    Some(self.locator.position_of(literal.start, written))
                })
        });
        let d = match found {
            Some((line, col, width)) => {
                Diagnostic::at(self.file, self.source, line, col, width, message)
            }
            None => Diagnostic::whole_file(self.file, message),
        };
        self.problems.push(match help {
            Some(h) => d.with_help(h),
            None => d,
        });
    }

    /// Where `needle` is: from the part being checked on, else anywhere in the file. A bare
    /// field name (`r`, `latency`) is looked for as a field, `name:` outside strings, so that
    /// the `r` of `Scenario(` or a word of the description is never taken for it.
    pub(super) fn find(&mut self, needle: &str) -> Option<(usize, usize, usize)> {
        let is_field = !needle.is_empty()
            && needle
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !needle.chars().all(|c| c.is_ascii_digit());
        if is_field
            && let Some(at) = field_offset(self.source, needle, self.anchor.unwrap_or(0))
                .or_else(|| field_offset(self.source, needle, 0))
        {
            return Some(self.locator.position_of(at, needle));
        }
        match self.anchor {
            Some(from) => self
                .locator
                .find_from(needle, from)
                .or_else(|| self.locator.find(needle)),
            None => self.locator.find(needle),
        }
    }

    /// Every size the file sets against [`caps`], each refused with the cap and the field.
    pub(super) fn sizes(&mut self, stop: &crate::schema::StopSpec, steps: usize) {
        // (where, what, value, cap, how to fix), every value widened so none can overflow.
        let sizes: [(&str, &str, u128, u128, &str); 5] = [
            (
                "config",
                "the node count",
                self.nodes.len() as u128,
                caps::NODES as u128,
                "a scenario runs at most that many nodes: use fewer",
            ),
            (
                "timeline",
                "the timeline's length",
                steps as u128,
                caps::TIMELINE_STEPS as u128,
                "split the scenario, or use a fault rule instead of one step per message",
            ),
            (
                "max_time_ms",
                "max_time_ms",
                u128::from(stop.max_time_ms),
                u128::from(caps::TIME_MS),
                "virtual time is in milliseconds: 60000 is a minute",
            ),
            (
                "max_steps",
                "max_steps",
                u128::from(stop.max_steps),
                u128::from(caps::STEPS),
                "a run longer than that is almost surely a livelock: lower it",
            ),
            (
                "max_in_flight",
                "max_in_flight",
                stop.max_in_flight as u128,
                caps::IN_FLIGHT as u128,
                "lower it: each message in flight takes memory",
            ),
        ];
        for (field, what, value, cap, fix) in sizes {
            if value > cap {
                let message = format!("{what} is {value}, above the limit of {cap}");
                self.problem(Some(field), message, Some(fix.to_string()));
            }
        }
    }

    pub(super) fn node_names(&mut self) {
        if self.nodes.is_empty() {
            self.problem(
                Some("config"),
                "the scenario has no nodes".into(),
                Some("name the nodes in the protocol's config".into()),
            );
        }
        let mut seen: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        let mut problems = Vec::new();
        for name in &self.nodes {
            let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
            if name.trim().is_empty()
                || name.trim() != name
                || name.chars().any(|c| c.is_control() || bidi(c))
            {
                // Found as written, or with escapes (`\n`) as `problem` also tries.
                problems.push((
                    format!("\"{name}\""),
                    format!(
                        "node name {name:?} is empty, padded with spaces or has control or \
                         direction-changing characters"
                    ),
                    "write the name on one line, without leading or trailing spaces",
                ));
            } else if name.chars().count() > caps::NAME_CHARS {
                let short: String = name.chars().take(20).collect();
                problems.push((
                    format!("\"{short}"),
                    format!(
                        "node name \"{short}...\" has {} characters, above the limit of {}",
                        name.chars().count(),
                        caps::NAME_CHARS
                    ),
                    "give the node a short name (the story prints it on every line)",
                ));
            } else if name.starts_with('@') {
                problems.push((
                    format!("\"{name}\""),
                    format!("node name \"{name}\" starts with `@`"),
                    "`@` marks a role in a step (\"@leader\"): start a node's name otherwise",
                ));
            } else if !seen.insert(name.as_str()) {
                problems.push((
                    format!("\"{name}\""),
                    format!("node \"{name}\" is named twice"),
                    "give every node its own name",
                ));
            }
        }
        for (needle, message, help) in problems {
            self.problem(Some(&needle), message, Some(help.into()));
        }
    }

    /// The nodes' names for a message: all of them, or the first [`LISTED_NODES`] and how many
    /// more.
    fn node_list(&self) -> String {
        let shown: Vec<&str> = self
            .nodes
            .iter()
            .take(LISTED_NODES)
            .map(String::as_str)
            .collect();
        match self.nodes.len().saturating_sub(LISTED_NODES) {
            0 => shown.join(", "),
            more => format!("{} and {more} more", shown.join(", ")),
        }
    }

    pub(super) fn node(&mut self, name: &str) -> Option<NodeId> {
        if let Some(&i) = self.index.get(name) {
            return Some(NodeId(i));
        }
        if self.problems.len() >= SHOWN_PROBLEMS {
            // Counted, not shown: no suggestion or list is worth making.
            self.unshown += 1;
            return None;
        }
        if name.chars().count() > caps::NAME_CHARS {
            // No suggestion: comparing long strings costs their product.
            let short: String = name.chars().take(20).collect();
            self.problem(
                Some(&format!("\"{short}")),
                format!(
                    "unknown node \"{short}...\" ({} characters)",
                    name.chars().count()
                ),
                Some(format!(
                    "node names have at most {} characters",
                    caps::NAME_CHARS
                )),
            );
            return None;
        }
        let list = self.node_list();
        let help = match closest(name, self.nodes.iter().map(String::as_str)) {
            Some(c) => format!("did you mean \"{c}\"? The nodes are: {list}"),
            None => format!("the nodes are: {list}"),
        };
        self.problem(
            Some(&format!("\"{name}\"")),
            format!("unknown node \"{name}\""),
            Some(help),
        );
        None
    }

    /// `action` on the node called `target`, or on whoever claims the role when `target` is
    /// `"@role"` ("@leader"): then the role must be one the protocol's nodes can claim.
    pub(super) fn on_node<P: Protocol>(
        &mut self,
        target: &str,
        action: NodeAction<<P::Actor as Actor>::Command>,
    ) -> Option<Action<<P::Actor as Actor>::Command>> {
        let Some(role) = target.strip_prefix('@') else {
            return Some(action.on(self.node(target)?));
        };
        let roles = <P::Actor as Actor>::ROLES;
        if roles.contains(&role) {
            return Some(Action::ToRole(role.to_string(), action));
        }
        let help = if roles.is_empty() {
            format!(
                "{} nodes claim no roles: name the node instead, one of: {}",
                P::NAME,
                self.node_list()
            )
        } else {
            let at: Vec<String> = roles.iter().map(|r| format!("@{r}")).collect();
            let at: Vec<&str> = at.iter().map(String::as_str).collect();
            suggest(target, &at, "roles a step can target")
        };
        self.problem(
            Some(&format!("\"{target}\"")),
            format!("unknown role \"{target}\""),
            Some(help),
        );
        None
    }

    pub(super) fn nodes_of(&mut self, names: &[String]) -> Option<Vec<NodeId>> {
        let ids: Vec<Option<NodeId>> = names.iter().map(|n| self.node(n)).collect();
        ids.into_iter().collect()
    }

    pub(super) fn kind<M: Message>(&mut self, kind: &str) -> bool {
        if M::KINDS.contains(&kind) {
            return true;
        }
        let help = suggest(kind, M::KINDS, "message kinds of this protocol");
        self.problem(
            Some(&format!("\"{kind}\"")),
            format!("unknown message kind \"{kind}\""),
            Some(help),
        );
        false
    }

    pub(super) fn link(&mut self, spec: &LinkSpec) -> LinkConfig {
        let ms = Duration::from_millis;
        let us = Duration::from_micros;
        let latency = match spec.latency {
            LatencySpec::Fixed(a) => Latency::Fixed(ms(a)),
            LatencySpec::FixedUs(a) => Latency::Fixed(us(a)),
            LatencySpec::Uniform(a, b) => Latency::Uniform {
                min: ms(a),
                max: ms(b),
            },
            LatencySpec::UniformUs(a, b) => Latency::Uniform {
                min: us(a),
                max: us(b),
            },
            LatencySpec::HeavyTail(a, b) => Latency::HeavyTail {
                min: ms(a),
                max: ms(b),
            },
        };
        if let Err(e) = latency.validate() {
            self.problem(
                Some("latency"),
                format!("bad latency: {e}"),
                Some("write the smaller bound first, e.g. Uniform(2, 10)".into()),
            );
        }
        LinkConfig {
            latency,
            loss: spec.loss,
            duplicate: spec.duplicate,
        }
    }

    pub(super) fn timeline<P: Protocol>(
        &mut self,
        config: &P::Config,
        steps: &[At<<P::Actor as Actor>::Command>],
        offsets: &[usize],
    ) -> Vec<(Instant, Action<<P::Actor as Actor>::Command>)> {
        let mut out = Vec::new();
        // The commands in the order they run (by time, then file order), and for each step
        // how many of them run before it: what `command_problem_after` judges it against.
        let mut order: Vec<usize> = (0..steps.len()).collect();
        order.sort_by_key(|&i| (steps[i].0, i));
        let mut commands = Vec::new();
        let mut commands_before = vec![0; steps.len()];
        for &i in &order {
            commands_before[i] = commands.len();
            if let Step::Command(_, cmd) = &steps[i].1 {
                commands.push(cmd);
            }
        }
        for (i, At(ms, step)) in steps.iter().enumerate() {
            // `At(` occurrences line up with steps unless the text has one elsewhere (in a
            // string): then fall back to searching the whole file.
            self.anchor = (offsets.len() == steps.len()).then(|| offsets[i]);
            if *ms > caps::TIME_MS {
                self.problem(
                    Some(&ms.to_string()),
                    format!(
                        "a step at {ms} ms is beyond the limit of {} ms (30 days)",
                        caps::TIME_MS
                    ),
                    Some("times are milliseconds of virtual time: At(1500, ...) is 1.5 s".into()),
                );
                continue;
            }
            let at = Instant::from_millis(*ms);
            // The step's own checks first (its node, its command's target), then whether it
            // means anything after the commands before it.
            let Some(action) = self.step::<P>(config, *ms, step) else {
                continue;
            };
            if let Step::Command(n, cmd) = step
                && let Some(why) =
                    P::command_problem_after(config, &commands[..commands_before[i]], cmd)
            {
                // Point at the node the command is about (`Join("n6")`), else its receiver.
                let about = P::command_nodes(cmd).into_iter().next();
                self.problem(
                    Some(&format!("\"{}\"", about.as_ref().unwrap_or(n))),
                    why,
                    None,
                );
                continue;
            }
            out.push((at, action));
        }
        self.anchor = None;
        out
    }

    pub(super) fn step<P: Protocol>(
        &mut self,
        config: &P::Config,
        at_ms: u64,
        step: &Step<<P::Actor as Actor>::Command>,
    ) -> Option<Action<<P::Actor as Actor>::Command>> {
        Some(match step {
            Step::Crash(n) => self.on_node::<P>(n, NodeAction::Crash)?,
            Step::Restart(n) => self.on_node::<P>(n, NodeAction::Restart)?,
            Step::Pause(n) => self.on_node::<P>(n, NodeAction::Pause)?,
            Step::Resume(n) => self.on_node::<P>(n, NodeAction::Resume)?,
            Step::Command(n, cmd) => {
                for other in P::command_nodes(cmd) {
                    self.node(&other);
                }
                if !n.starts_with('@')
                    && self.index.contains_key(n.as_str())
                    && let Some(why) = P::command_problem(config, n, cmd)
                {
                    self.problem(Some(&format!("\"{n}\"")), why, None);
                    return None;
                }
                self.on_node::<P>(n, NodeAction::Command(cmd.clone()))?
            }
            Step::Partition(groups) => {
                let mut seen = std::collections::BTreeSet::new();
                for name in groups.iter().flatten() {
                    if !seen.insert(name) {
                        self.problem(
                            Some(&format!("\"{name}\"")),
                            format!("\"{name}\" is in two groups of the partition"),
                            Some(
                                "a node is on one side of a partition: list it in one group \
                                 (two one-way cuts with PartitionOneWay model an asymmetric one)"
                                    .into(),
                            ),
                        );
                        return None;
                    }
                }
                let ids: Vec<Option<Vec<NodeId>>> =
                    groups.iter().map(|g| self.nodes_of(g)).collect();
                Action::Partition(ids.into_iter().collect::<Option<_>>()?)
            }
            Step::PartitionOneWay { from, to } => {
                let from = self.nodes_of(from);
                let to = self.nodes_of(to);
                Action::PartitionOneWay(from?, to?)
            }
            Step::Heal => Action::Heal,
            Step::ClearRules => Action::ClearRules,
            Step::Drop {
                from,
                to,
                msg,
                nth,
                until_ms,
            } => self.rule::<P>(at_ms, from, to, msg, *nth, *until_ms, RuleAction::Drop)?,
            Step::Delay {
                from,
                to,
                msg,
                nth,
                until_ms,
                by_ms,
            } => {
                let action = RuleAction::Delay {
                    by: Duration::from_millis(*by_ms),
                };
                self.rule::<P>(at_ms, from, to, msg, *nth, *until_ms, action)?
            }
            Step::Duplicate {
                from,
                to,
                msg,
                nth,
                until_ms,
                after_ms,
            } => {
                let action = RuleAction::Duplicate {
                    after: Duration::from_millis(*after_ms),
                };
                self.rule::<P>(at_ms, from, to, msg, *nth, *until_ms, action)?
            }
            Step::Clock {
                node,
                skew_ms,
                drift_ppm,
            } => {
                let clock = Clock {
                    skew_ns: skew_ms.saturating_mul(1_000_000),
                    drift_ppm: *drift_ppm,
                };
                if let Err(e) = clock.validate() {
                    self.problem(Some("drift_ppm"), e, None);
                }
                Action::SetClock(self.node(node)?, clock)
            }
            Step::Network(spec) => Action::SetDefaultLink(self.link(spec)),
            Step::Link { from, to, link } => {
                let from = self.node(from);
                let to = self.node(to);
                let link = self.link(link);
                Action::SetLink(from?, to?, link)
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn rule<P: Protocol>(
        &mut self,
        at_ms: u64,
        from: &Option<String>,
        to: &Option<String>,
        msg: &Option<String>,
        nth: Option<u64>,
        until_ms: Option<u64>,
        action: RuleAction,
    ) -> Option<Action<<P::Actor as Actor>::Command>> {
        let from_id = from.as_ref().map(|n| self.node(n));
        let to_id = to.as_ref().map(|n| self.node(n));
        let kind_ok = msg
            .as_ref()
            .is_none_or(|k| self.kind::<<P::Actor as Actor>::Msg>(k));
        if nth == Some(0) {
            self.problem(
                Some("nth"),
                "nth counts from 1 (the first matching message)".into(),
                Some("write nth: 1 for the first one".into()),
            );
            return None;
        }
        if until_ms.is_some_and(|u| u <= at_ms) {
            self.problem(
                Some("until_ms"),
                format!("this rule ends (until_ms) before it starts (at {at_ms} ms)"),
                None,
            );
            return None;
        }
        let mut rule = FaultRule::new(action);
        rule.from = match from_id {
            Some(id) => Some(id?),
            None => None,
        };
        rule.to = match to_id {
            Some(id) => Some(id?),
            None => None,
        };
        if !kind_ok {
            return None;
        }
        rule.kind = msg.clone();
        rule.nth = nth;
        rule.since = Some(Instant::from_millis(at_ms));
        rule.until = until_ms.map(Instant::from_millis);
        Some(Action::AddRule(rule))
    }
}
