//! The processes of a search find each other: timely's own handshake (each process connects
//! to those before it and says its index, as 8 big-endian bytes, and accepts those after it),
//! done here only so that it prints nothing: timely's prints its progress on standard output,
//! where `dsim explore --json` writes its report. The connected sockets go to timely's
//! networking as they are ([`initialize_networking_from_sockets`]).

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;
// Waiting for the other processes is wall-clock time by nature; it reaches no result.
#[allow(clippy::disallowed_types)]
use std::time::Instant;
use timely::communication::Hooks;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};

/// How long a process waits for the others to start.
const PATIENCE: Duration = Duration::from_secs(120);

/// The allocators of `threads` workers in process `process` of those at `addresses`, connected
/// to the others, and what keeps the connections alive.
pub(crate) fn cluster(
    threads: usize,
    process: usize,
    addresses: &[String],
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), String> {
    let sockets = connect(addresses, process).map_err(|e| {
        format!(
            "connecting the search's processes ({}): {e}",
            addresses.join(", ")
        )
    })?;
    let hooks = Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, process, threads, hooks)
            .map_err(|e| format!("starting the search's network: {e}"))?;
    Ok((
        builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}

/// One socket per other process, in process order, `None` at `me`.
fn connect(addresses: &[String], me: usize) -> io::Result<Vec<Option<TcpStream>>> {
    #[allow(clippy::disallowed_types)]
    let deadline = Instant::now() + PATIENCE;
    let listener = TcpListener::bind(&addresses[me])?;
    listener.set_nonblocking(true)?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (index, address) in addresses.iter().enumerate().take(me) {
        let mut stream = loop {
            match TcpStream::connect(address) {
                Ok(stream) => break stream,
                #[allow(clippy::disallowed_types)]
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(100))
                }
                Err(e) => return Err(e),
            }
        };
        stream.set_nodelay(true)?;
        stream.write_all(&(me as u64).to_be_bytes())?;
        sockets[index] = Some(stream);
    }
    let mut waiting = addresses.len() - me - 1;
    while waiting > 0 {
        match listener.accept() {
            Ok((mut stream, _)) => {
                stream.set_nonblocking(false)?;
                stream.set_nodelay(true)?;
                let mut word = [0u8; 8];
                stream.read_exact(&mut word)?;
                let index = u64::from_be_bytes(word) as usize;
                if index <= me || index >= addresses.len() || sockets[index].is_some() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("a process said it was process {index}"),
                    ));
                }
                sockets[index] = Some(stream);
                waiting -= 1;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                #[allow(clippy::disallowed_types)]
                if Instant::now() >= deadline {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("{waiting} process(es) did not connect within {PATIENCE:?}"),
                    ));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(sockets)
}
