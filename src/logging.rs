//! `tracing` diagnostics stamped with virtual time: `RUST_LOG=dsim=debug dsim run ...`.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

/// Stamps each diagnostic line with the simulation's virtual time, not the wall clock.
struct VirtualTime;

impl FormatTime for VirtualTime {
    fn format_time(&self, w: &mut Writer<'_>) -> std::fmt::Result {
        let t = sim_core::time::current().as_nanos();
        write!(w, "t={}.{:06}s", t / 1_000_000_000, (t / 1_000) % 1_000_000)
    }
}

/// Installs the subscriber when `RUST_LOG` is set (otherwise nothing is installed: zero cost).
pub fn init() {
    if std::env::var_os("RUST_LOG").is_none() {
        return;
    }
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::from_default_env())
        .with_timer(VirtualTime)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
}
