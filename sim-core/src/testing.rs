//! What this crate's unit tests share: the smallest message there is.

use crate::Message;

/// A message with no content, of the one kind "Ping".
#[derive(Clone, Debug, Hash, serde::Serialize, serde::Deserialize)]
pub struct Ping;

impl Message for Ping {
    const KINDS: &'static [&'static str] = &["Ping"];
    fn kind(&self) -> &'static str {
        "Ping"
    }
}
