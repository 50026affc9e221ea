//! Tests of the Paxos module: handlers in isolation, the course's scenarios through the kernel,
//! the bug knobs against their controls, the invariants on hand-made records, and the story.

mod bugs;
mod config;
mod course;
mod handlers;
mod invariants;
mod lesson_program;
mod story;
mod support;
