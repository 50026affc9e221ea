//! The renaming in force on this thread while a search hashes a state (see
//! [`crate::symmetry`]): what `NodeId`'s and `NodeName`'s `Hash` read. A child of `id`, so the
//! ids need nothing of the search's module.

use super::Name;
use std::cell::RefCell;
use std::hash::Hasher;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether any thread has ever put a renaming in force: until then, hashing an id reads no
/// thread-local state (the common case, and every timed run's).
static EVER: AtomicBool = AtomicBool::new(false);

/// A renaming as hashing reads it: the new id of each id (empty: none in force), and each
/// renamed node's (old name, new name).
type InForce = (Vec<u32>, Vec<(Name, Name)>);

thread_local! {
    /// The renaming in force on this thread.
    static RENAMING: RefCell<InForce> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// The id `id` hashes as: its renamed id while a renaming is in force on this thread.
#[inline]
pub(crate) fn renamed_id(id: u32) -> u32 {
    if !EVER.load(Ordering::Relaxed) {
        return id;
    }
    RENAMING.with(|r| r.borrow().0.get(id as usize).copied().unwrap_or(id))
}

/// Calls `f` with the name `name` hashes as: its renamed name while a renaming is in force.
#[inline]
pub(crate) fn with_renamed_name<R>(name: &str, f: impl FnOnce(&str) -> R) -> R {
    if !EVER.load(Ordering::Relaxed) {
        return f(name);
    }
    RENAMING.with(|r| {
        let r = r.borrow();
        match r.1.iter().find(|(old, _)| &**old == name) {
            Some((_, new)) => f(new),
            None => f(name),
        }
    })
}

/// Hashes `name`, a node's name, as [`NodeName`] does: its renamed name while a renaming is in
/// force. For a memory that keeps names in its own layout (indices into a sorted list of
/// them) and so hashes them one by one.
///
/// [`NodeName`]: crate::NodeName
pub fn hash_name<H: Hasher + ?Sized>(name: &str, state: &mut H) {
    with_renamed_name(name, |renamed| {
        state.write(renamed.as_bytes());
        state.write_u8(0xff);
    });
}

/// Clears this thread's renaming when dropped, so a panic while hashing leaves none in force.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        RENAMING.with(|r| {
            let mut r = r.borrow_mut();
            r.0.clear();
            r.1.clear();
        });
    }
}

/// Calls `f` with the renaming `ids` (the new id of each id) in force on this thread, `names`
/// giving each renamed node's (old name, new name).
pub(crate) fn in_force<R>(
    ids: &[u32],
    names: impl Iterator<Item = (Name, Name)>,
    f: impl FnOnce() -> R,
) -> R {
    EVER.store(true, Ordering::Relaxed);
    RENAMING.with(|cell| {
        let mut cell = cell.borrow_mut();
        cell.0.clear();
        cell.0.extend_from_slice(ids);
        cell.1.clear();
        cell.1.extend(names);
    });
    let _restore = Restore;
    f()
}
