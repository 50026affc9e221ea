//! `dsim cost`: messages per decision for PBFT, Paxos, Multi-Paxos and Raft at several cluster sizes, counted from
//! runs (the course's comparison table, measured). The runs and counts live in
//! `scenarios::cost`; this prints them as a table, JSON or an SVG plot.

use crate::chart::{Chart, Series};
use crate::exit::{CliError, OK};
use crate::flags::parse_lang;
use crate::output::out;
use scenarios::cost::{
    self, Cost, MULTIPAXOS_PHASE_1, MULTIPAXOS_PHASE_2, PAXOS_PHASE_1, PAXOS_PHASE_2,
    PBFT_AGREEMENT, PBFT_OTHER, RAFT_REPLICATION,
};
use std::path::PathBuf;
use traces::Lang;

/// Arguments of `dsim cost`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = "\
Each size is run as an ordinary scenario on a healthy network with one correct leader: PBFT's
normal case (f = (N-1)/3, one client's requests in a row), single-decree Paxos with one
proposer (f = (N-1)/2) and Raft log replication with one client's writes in a row (f =
(N-1)/2). The sends of every message kind are counted from the run's records and divided by the
decisions made. PBFT's agreement (pre-prepare, prepare, commit) is 2N(N-1) messages a request:
O(N^2). Paxos's phase 2 (accept, accepted) is 2N a decision: O(N), what a stable Multi-Paxos
leader pays; phase 1 is paid once per leader and not in the table. Raft's AppendEntries that
carry the entry and their replies are 2(N-1) an entry: O(N) (heartbeats, paid per period by an
idle leader, are left out).

A second table compares the crash-fault protocols at N = 3, 5, 7 (--crash-sizes): single-decree
Paxos pays both phases for its one decision (4N, the proposer apart from the N acceptors);
Multi-Paxos with a stable leader runs phase 1 once for every slot (2(N-1) messages, prepare and
promise, the leader voting for itself) and then only phase 2 per entry, 2(N-1): the lesson's
'O(N): solo fase 2 con líder estable', the same count as Raft's AppendEntries.

Examples:
  dsim cost
  dsim cost --sizes 4,7,10,13,16,31 --plot cost.svg
  dsim cost --lang es --json")]
pub struct CostArgs {
    /// Cluster sizes N (PBFT replicas and Paxos acceptors), comma-separated, each 4 to 63.
    #[arg(long, value_delimiter = ',', default_value = "4,7,10,13,16")]
    pub sizes: Vec<usize>,
    /// Cluster sizes N of the crash-fault table (single-decree Paxos, Multi-Paxos, Raft),
    /// comma-separated, each 1 to 63.
    #[arg(long, value_delimiter = ',', default_value = "3,5,7")]
    pub crash_sizes: Vec<usize>,
    /// Requests the PBFT client sends (checkpoints, every 4, are spread over them), the
    /// writes of the Raft client and the entries of the Multi-Paxos leader.
    #[arg(long, default_value_t = 8)]
    pub requests: u64,
    /// Language of the table: `en` (default) or `es`.
    #[arg(long, default_value = "en", value_parser = parse_lang)]
    pub lang: Lang,
    /// Draw messages per decision against N as an SVG picture to FILE.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Print the counts as JSON.
    #[arg(long)]
    pub json: bool,
}

/// One size's two runs.
#[derive(serde::Serialize)]
struct Row {
    n: usize,
    pbft: Cost,
    pbft_agreement_per_request: f64,
    pbft_other_per_request: f64,
    paxos: Cost,
    paxos_phase_2_per_decision: f64,
    paxos_phase_1_per_leader: f64,
    raft: Cost,
    raft_replication_per_entry: f64,
}

/// One size of the crash-fault table: a decision of single-decree Paxos against an entry of
/// Multi-Paxos and of Raft.
#[derive(serde::Serialize)]
struct CrashRow {
    n: usize,
    f: usize,
    paxos_per_decision: f64,
    multipaxos_phase_2_per_entry: f64,
    multipaxos_phase_1_once: f64,
    raft_per_entry: f64,
    multipaxos: Cost,
}

/// Everything `dsim cost --json` prints.
#[derive(serde::Serialize)]
struct Tables {
    rows: Vec<Row>,
    crash_fault: Vec<CrashRow>,
}

/// The most sizes one table may ask for.
const MAX_SIZES: usize = 32;

/// Runs `dsim cost`.
pub fn run(args: CostArgs) -> Result<u8, CliError> {
    if args.sizes.is_empty() || args.sizes.len() > MAX_SIZES {
        return Err(CliError::bad_input(format!(
            "--sizes: give 1 to {MAX_SIZES} sizes, e.g. 4,7,10"
        )));
    }
    if args.crash_sizes.is_empty() || args.crash_sizes.len() > MAX_SIZES {
        return Err(CliError::bad_input(format!(
            "--crash-sizes: give 1 to {MAX_SIZES} sizes, e.g. 3,5,7"
        )));
    }
    let mut rows = Vec::new();
    for &n in &args.sizes {
        let pbft = cost::pbft(n, args.requests).map_err(CliError::bad_input)?;
        let paxos = cost::paxos(n).map_err(CliError::bad_input)?;
        let raft = cost::raft(n, args.requests).map_err(CliError::bad_input)?;
        rows.push(Row {
            raft_replication_per_entry: raft.per_decision(RAFT_REPLICATION),
            raft,
            n,
            pbft_agreement_per_request: pbft.per_decision(PBFT_AGREEMENT),
            pbft_other_per_request: pbft.per_decision(PBFT_OTHER),
            paxos_phase_2_per_decision: paxos.per_decision(PAXOS_PHASE_2),
            paxos_phase_1_per_leader: paxos.per_decision(PAXOS_PHASE_1),
            pbft,
            paxos,
        });
    }
    let mut crash_fault = Vec::new();
    for &n in &args.crash_sizes {
        let paxos = cost::paxos(n).map_err(CliError::bad_input)?;
        let multipaxos = cost::multipaxos(n, args.requests).map_err(CliError::bad_input)?;
        let raft = cost::raft(n, args.requests).map_err(CliError::bad_input)?;
        crash_fault.push(CrashRow {
            n,
            f: multipaxos.f,
            paxos_per_decision: paxos.per_decision(PAXOS_PHASE_1)
                + paxos.per_decision(PAXOS_PHASE_2),
            multipaxos_phase_2_per_entry: multipaxos.per_decision(MULTIPAXOS_PHASE_2),
            multipaxos_phase_1_once: MULTIPAXOS_PHASE_1
                .iter()
                .map(|k| multipaxos.sent[k] as f64)
                .sum(),
            raft_per_entry: raft.per_decision(RAFT_REPLICATION),
            multipaxos,
        });
    }
    if let Some(path) = &args.plot {
        crate::chart::write_plot(Some(path), &chart(&rows, args.lang))?;
    }
    if args.json {
        let tables = Tables { rows, crash_fault };
        out!(
            "{}",
            serde_json::to_string_pretty(&tables).expect("serializes")
        );
    } else {
        print_table(&rows, args.lang)?;
        print_crash_table(&crash_fault, args.lang)?;
    }
    Ok(OK)
}

fn print_table(rows: &[Row], lang: Lang) -> Result<(), CliError> {
    let es = lang == Lang::Es;
    let (title, pbft, paxos, raft, other, phase1, replies) = if es {
        (
            "Mensajes por decisión (régimen estable), contados en ejecuciones sin fallos:",
            "PBFT, por petición",
            "Paxos con líder estable, por decisión",
            "Raft, por entrada",
            "otros",
            "fase 1",
            "respuestas",
        )
    } else {
        (
            "Messages per decision (stable regime), counted from runs on a healthy network:",
            "PBFT, per request",
            "Paxos with a stable leader, per decision",
            "Raft, per entry",
            "others",
            "phase 1",
            "replies",
        )
    };
    out!("{title}");
    out!();
    out!("{:>4}   {pbft:<57}   {paxos:<40}   {raft}", "");
    out!(
        "{:>4}   {:>2} {:>11} {:>8} {:>7} {:>6} {:>8} {:>7}   {:>2} {:>6} {:>8} {:>6} {:>8}   {:>2} {:>13} {:>10} {:>6} {:>8}",
        "N",
        "f",
        "pre-prepare",
        "prepare",
        "commit",
        "total",
        "total/N²",
        other,
        "f",
        "accept",
        "accepted",
        "total",
        "total/N",
        "f",
        "AppendEntries",
        replies,
        "total",
        "total/N"
    );
    for r in rows {
        let pbft = |kind: &str| fmt(r.pbft.sent[kind] as f64 / r.pbft.decisions as f64);
        let paxos = |kind: &str| fmt(r.paxos.sent[kind] as f64 / r.paxos.decisions as f64);
        let raft = |kind: &str| fmt(r.raft.sent[kind] as f64 / r.raft.decisions as f64);
        let n = r.n as f64;
        out!(
            "{:>4}   {:>2} {:>11} {:>8} {:>7} {:>6} {:>8.2} {:>7}   {:>2} {:>6} {:>8} {:>6} {:>8.2}   {:>2} {:>13} {:>10} {:>6} {:>8.2}",
            r.n,
            r.pbft.f,
            pbft("PrePrepare"),
            pbft("Prepare"),
            pbft("Commit"),
            fmt(r.pbft_agreement_per_request),
            r.pbft_agreement_per_request / (n * n),
            fmt(r.pbft_other_per_request),
            r.paxos.f,
            paxos("Accept"),
            paxos("Accepted"),
            fmt(r.paxos_phase_2_per_decision),
            r.paxos_phase_2_per_decision / n,
            r.raft.f,
            raft(RAFT_REPLICATION[0]),
            raft(RAFT_REPLICATION[1]),
            fmt(r.raft_replication_per_entry),
            r.raft_replication_per_entry / n,
        );
    }
    out!();
    if es {
        out!("PBFT: 2N(N-1) mensajes de acuerdo por petición, O(N²), y cada uno firmado; su");
        out!(
            "columna total/N² tiende a 2. Paxos con líder estable: 2N por decisión, O(N) (la {phase1},"
        );
        out!(
            "prepare y promise, 2N más, se paga una vez por líder). \"{other}\": la petición del cliente,"
        );
        out!("las respuestas y los checkpoints (uno cada 4 peticiones), repartidos por petición.");
        out!("Raft: el líder envía cada entrada a N-1 seguidores y recibe N-1 respuestas, 2(N-1),");
        out!(
            "O(N); los latidos, que un líder ocioso paga por periodo y no por entrada, no cuentan."
        );
    } else {
        out!("PBFT: 2N(N-1) agreement messages a request, O(N²), each one signed; its total/N²");
        out!(
            "column tends to 2. Paxos with a stable leader: 2N a decision, O(N) ({phase1}, prepare and"
        );
        out!("promise, 2N more, is paid once per leader). \"{other}\": the client's request, the");
        out!("replies and the checkpoints (one every 4 requests), spread over the requests.");
        out!("Raft: the leader sends each entry to N-1 followers and gets N-1 replies, 2(N-1),");
        out!(
            "O(N); heartbeats, which an idle leader pays per period and not per entry, are left out."
        );
    }
    Ok(())
}

/// The crash-fault table: what one decision costs single-decree Paxos, and one entry
/// Multi-Paxos with a stable leader and Raft.
fn print_crash_table(rows: &[CrashRow], lang: Lang) -> Result<(), CliError> {
    let es = lang == Lang::Es;
    out!();
    if es {
        out!("Consenso con fallos de parada, mensajes por decisión (por entrada del log):");
        out!();
        out!(
            "{:>4} {:>2}   {:>22}   {:>30}   {:>10}",
            "N",
            "f",
            "Paxos de un valor",
            "Multi-Paxos: fase 2 (fase 1)",
            "Raft"
        );
    } else {
        out!("Crash-fault consensus, messages per decision (per log entry):");
        out!();
        out!(
            "{:>4} {:>2}   {:>22}   {:>30}   {:>10}",
            "N",
            "f",
            "single-decree Paxos",
            "Multi-Paxos: phase 2 (phase 1)",
            "Raft"
        );
    }
    for r in rows {
        out!(
            "{:>4} {:>2}   {:>22}   {:>30}   {:>10}",
            r.n,
            r.f,
            fmt(r.paxos_per_decision),
            format!(
                "{} ({})",
                fmt(r.multipaxos_phase_2_per_entry),
                fmt(r.multipaxos_phase_1_once)
            ),
            fmt(r.raft_per_entry)
        );
    }
    out!();
    if es {
        out!("Paxos de un valor paga las dos fases en cada decisión (4N: el proposer aparte de");
        out!("los N acceptors). Multi-Paxos con líder estable hace la fase 1 una sola vez para");
        out!("todas las entradas (entre paréntesis, una vez por líder) y luego solo la fase 2:");
        out!("2(N-1) mensajes por entrada, los mismos que Raft.");
    } else {
        out!("Single-decree Paxos pays both phases for each decision (4N: the proposer apart from");
        out!(
            "the N acceptors). Multi-Paxos with a stable leader runs phase 1 once for every entry"
        );
        out!("(in parentheses, once per leader), then only phase 2: 2(N-1) messages an entry,");
        out!("Raft's count.");
    }
    Ok(())
}

/// A count per decision: whole numbers without decimals.
fn fmt(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

fn chart(rows: &[Row], lang: Lang) -> Chart {
    let es = lang == Lang::Es;
    let point = |f: fn(&Row) -> f64| move |r: &Row| (r.n as f64, f(r));
    Chart {
        title: if es {
            "mensajes por decisión: PBFT O(N²), Paxos y Raft O(N)".into()
        } else {
            "messages per decision: PBFT O(N²), Paxos and Raft O(N)".into()
        },
        x_label: if es {
            "N (réplicas, aceptadores, servidores)".into()
        } else {
            "N (replicas, acceptors, servers)".into()
        },
        y_label: if es {
            "mensajes por decisión".into()
        } else {
            "messages per decision".into()
        },
        log_x: false,
        log_y: false,
        series: vec![
            Series::of(
                if es {
                    "PBFT (3 fases)"
                } else {
                    "PBFT (3 phases)"
                },
                rows,
                point(|r| r.pbft_agreement_per_request),
                false,
            ),
            Series::of(
                if es { "Paxos fase 2" } else { "Paxos phase 2" },
                rows,
                point(|r| r.paxos_phase_2_per_decision),
                false,
            ),
            Series::of(
                "Raft AppendEntries",
                rows,
                point(|r| r.raft_replication_per_entry),
                false,
            ),
        ],
    }
}
