//! The languages a story is told in.

/// The language of a story. The course is taught in Spanish; English is the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Spanish, with the lesson's own words.
    Es,
}
