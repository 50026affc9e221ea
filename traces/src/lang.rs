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

impl Lang {
    /// One of a line's two wordings: `en` in English, `es` in Spanish.
    pub fn pick<T>(self, en: T, es: T) -> T {
        match self {
            Lang::En => en,
            Lang::Es => es,
        }
    }

    /// The language's tag (`en`, `es`): the page's `lang` attribute and the key of a
    /// violation's translations (`sim_core::Broken`).
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
        }
    }
}
