//! Telling a run while it happens, in memory that does not grow with the run's length.
//!
//! A run of ten million steps makes ten million records; keeping them to tell the story at the
//! end took gigabytes. Instead a [`Teller`] takes each record as the kernel makes it, keeps a
//! window of at most [`WINDOW`] records, tells each full window ([`super::tell_from`]: the
//! protocol's lines, folded) and hands its lines to a [`Shortener`], which keeps only what a
//! shortened story shows: its first lines, the key events up to a cap, and a sliding window of
//! its last lines.
//!
//! What a window changes: lines are folded ([`super::fold`]) and told from other records
//! ([`Story::retold`], [`Story::retell`], a partition's cut messages) within one window, so at a
//! window's edge a repeated line may be told twice ("and 40 more like it" then "and 12 more").
//! A run of at most [`WINDOW`] records is told exactly as if told whole (every bundled scenario:
//! the longest makes 8,498 records).

use super::{Shown, Story, Told, tell_from};
use crate::lang::Lang;
use crate::narrate::Detail;
use sim_core::Record;
use std::collections::VecDeque;

/// How many records a story is told at a time: twice the longest bundled scenario's run, so
/// the course's stories are told whole, and about 7 MB of records at most.
pub const WINDOW: usize = 16_384;

/// A story told record by record (see the module's documentation).
pub struct Teller<P: Story> {
    lang: Lang,
    detail: Detail,
    window: Vec<Record<P::Actor>>,
    capacity: usize,
    /// The run's index of `window[0]`.
    first: usize,
    shortener: Shortener,
}

impl<P: Story> Teller<P> {
    /// A teller in `lang` at `detail`, handing its lines to `shortener`.
    pub fn new(lang: Lang, detail: Detail, shortener: Shortener) -> Self {
        Self::with_window(lang, detail, shortener, WINDOW)
    }

    /// [`Teller::new`] with a window of `capacity` records (at least 1): tests use small ones.
    pub fn with_window(lang: Lang, detail: Detail, shortener: Shortener, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Teller {
            lang,
            detail,
            window: Vec::with_capacity(capacity.min(WINDOW)),
            capacity,
            first: 0,
            shortener,
        }
    }

    /// Takes the run's next record.
    pub fn push(&mut self, record: Record<P::Actor>) {
        self.window.push(record);
        if self.window.len() >= self.capacity {
            self.tell_window();
        }
    }

    fn tell_window(&mut self) {
        for told in tell_from::<P>(&self.window, self.first, self.lang, self.detail) {
            self.shortener.push(told);
        }
        self.first += self.window.len();
        self.window.clear();
    }

    /// The story as shown, once the run has ended.
    pub fn finish(mut self) -> Vec<Shown> {
        self.tell_window();
        self.shortener.finish()
    }
}

/// [`super::shorten`], line by line: keeps the first `head` lines, the key lines after them (at
/// most `keys`), and the last `tail` lines seen so far, and counts the rest. Memory is
/// `head + tail + keys` lines whatever the story's length (`--full` asks for every line, and
/// then the story's length is the user's choice).
#[derive(Clone, Debug)]
pub struct Shortener {
    head: usize,
    tail: usize,
    keys_left: usize,
    seen: usize,
    shown: Vec<Shown>,
    /// The last lines after the head: each may still be among the story's last `tail`.
    recent: VecDeque<Told>,
    /// Lines left out since the last one shown, and the one line when there is exactly one (a
    /// gap of one line shows the line instead).
    gap: usize,
    gap_line: Option<Told>,
}

impl Shortener {
    /// A story shortened to its first `head` and last `tail` lines and at most `keys` key
    /// lines between them.
    pub fn new(head: usize, tail: usize, keys: usize) -> Self {
        Shortener {
            head,
            tail,
            keys_left: keys,
            seen: 0,
            shown: Vec::new(),
            recent: VecDeque::new(),
            gap: 0,
            gap_line: None,
        }
    }

    /// A story shown whole.
    pub fn whole() -> Self {
        Shortener::new(usize::MAX, 0, 0)
    }

    /// Takes the story's next line.
    pub fn push(&mut self, told: Told) {
        self.seen += 1;
        if self.seen <= self.head {
            self.shown.push(Shown::Line(told));
            return;
        }
        self.recent.push_back(told);
        if self.recent.len() > self.tail
            && let Some(middle) = self.recent.pop_front()
        {
            self.middle(middle);
        }
    }

    /// A line that is neither among the first nor among the last: shown if it is a key line
    /// and the cap allows, else left out.
    fn middle(&mut self, told: Told) {
        if told.key && self.keys_left > 0 {
            self.keys_left -= 1;
            self.close_gap();
            self.shown.push(Shown::Line(told));
            return;
        }
        self.gap += 1;
        self.gap_line = (self.gap == 1).then_some(told);
    }

    fn close_gap(&mut self) {
        match self.gap {
            0 => {}
            1 => self.shown.extend(self.gap_line.take().map(Shown::Line)),
            n => self.shown.push(Shown::Gap(n)),
        }
        self.gap = 0;
        self.gap_line = None;
    }

    /// The story as shown.
    pub fn finish(mut self) -> Vec<Shown> {
        self.close_gap();
        self.shown.extend(self.recent.into_iter().map(Shown::Line));
        self.shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::story::Told;
    use sim_core::Instant;

    /// `shorten` as it was written over a whole story, kept as the reference the streaming
    /// version must equal.
    fn reference(story: &[Told], head: usize, tail: usize, keys: usize) -> Vec<Shown> {
        let n = story.len();
        if n <= head + tail {
            return story.iter().cloned().map(Shown::Line).collect();
        }
        let mut keys_left = keys;
        let keep: Vec<bool> = story
            .iter()
            .enumerate()
            .map(|(i, told)| {
                if i < head || i >= n - tail {
                    return true;
                }
                let key = told.key && keys_left > 0;
                keys_left -= usize::from(key);
                key
            })
            .collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < n {
            if keep[i] {
                out.push(Shown::Line(story[i].clone()));
                i += 1;
                continue;
            }
            let gap = keep[i..].iter().take_while(|k| !**k).count();
            out.push(if gap == 1 {
                Shown::Line(story[i].clone())
            } else {
                Shown::Gap(gap)
            });
            i += gap;
        }
        out
    }

    // Goal: shortening line by line shows exactly what shortening the whole story showed.
    // Method: every story of up to 11 lines with every pattern of key lines, for every head,
    // tail and cap of key lines up to 3, against the whole-story algorithm. Proves: the
    // streaming shortener is a drop-in for the old one (so `dsim run` prints the same story).
    #[test]
    fn shortening_line_by_line_equals_shortening_the_whole_story() {
        for n in 0..=11usize {
            for keys_mask in 0..(1u32 << n) {
                let story: Vec<Told> = (0..n)
                    .map(|i| Told {
                        index: i,
                        time: Instant::ZERO,
                        text: format!("line {i}"),
                        key: keys_mask & (1 << i) != 0,
                        pinned: false,
                    })
                    .collect();
                for (head, tail, keys) in
                    (0..4).flat_map(|h| (0..4).flat_map(move |t| (0..4).map(move |k| (h, t, k))))
                {
                    let mut s = Shortener::new(head, tail, keys);
                    story.iter().cloned().for_each(|t| s.push(t));
                    assert_eq!(
                        s.finish(),
                        reference(&story, head, tail, keys),
                        "n={n} keys={keys_mask:b} head={head} tail={tail} cap={keys}"
                    );
                }
            }
        }
    }

    // Goal: a whole story is every line. Method: 1,000 lines through `Shortener::whole`.
    // Proves: `--full` loses nothing.
    #[test]
    fn a_whole_story_keeps_every_line() {
        let mut s = Shortener::whole();
        for i in 0..1000 {
            s.push(Told {
                index: i,
                time: Instant::ZERO,
                text: String::new(),
                key: false,
                pinned: false,
            });
        }
        let shown = s.finish();
        assert_eq!(shown.len(), 1000);
        assert!(shown.iter().all(|s| matches!(s, Shown::Line(_))));
    }
}
