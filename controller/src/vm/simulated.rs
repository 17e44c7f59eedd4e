//! The default VirtualMachine driver: a hypervisor simulated in process. Servers get ids and a
//! usage that drifts deterministically over time; failures can be injected for tests.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use futures::future::BoxFuture;

use super::driver::{DriverError, Resources, Server, VmDriver};

/// The in-process hypervisor.
#[derive(Debug, Default)]
pub struct SimulatedHypervisor {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    servers: BTreeMap<String, (Server, Resources)>,
    next_id: u64,
    /// Refreshes seen, so usage changes between reads.
    ticks: u64,
    create_failures: VecDeque<String>,
    delete_failures: VecDeque<String>,
}

impl SimulatedHypervisor {
    /// A hypervisor with no servers.
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The next `count` creates fail with `message`.
    pub fn fail_creates(&self, count: usize, message: &str) {
        self.state()
            .create_failures
            .extend(std::iter::repeat_n(message.to_owned(), count));
    }

    /// The next `count` deletes fail with `message`.
    pub fn fail_deletes(&self, count: usize, message: &str) {
        self.state()
            .delete_failures
            .extend(std::iter::repeat_n(message.to_owned(), count));
    }

    /// The names of the servers that exist.
    pub fn server_names(&self) -> Vec<String> {
        self.state().servers.keys().cloned().collect()
    }
}

/// A usage in [5, 95) that depends on the server and the tick, so it moves but is reproducible.
fn usage(name: &str, tick: u64, salt: u64) -> f64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
    for byte in name.bytes().chain(tick.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    5.0 + (hash % 9000) as f64 / 100.0
}

impl VmDriver for SimulatedHypervisor {
    fn create_server<'a>(&'a self, name: &'a str, resources: Resources) -> BoxFuture<'a, Result<Server, DriverError>> {
        Box::pin(async move {
            let mut state = self.state();
            if let Some(message) = state.create_failures.pop_front() {
                return Err(DriverError(message));
            }
            if let Some((server, _)) = state.servers.get(name) {
                return Ok(server.clone());
            }
            if resources.cpu <= 0.0 || resources.memory_bytes <= 0.0 {
                return Err(DriverError(format!(
                    "a server needs CPU and memory, got {} CPU and {} bytes",
                    resources.cpu, resources.memory_bytes
                )));
            }
            state.next_id += 1;
            let server = Server {
                id: format!("sim-{:08x}", state.next_id),
                state: "ACTIVE".to_owned(),
                cpu_percentage: usage(name, 0, 1),
                memory_percentage: usage(name, 0, 2),
            };
            state.servers.insert(name.to_owned(), (server.clone(), resources));
            Ok(server)
        })
    }

    fn delete_server<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<(), DriverError>> {
        Box::pin(async move {
            let mut state = self.state();
            if let Some(message) = state.delete_failures.pop_front() {
                return Err(DriverError(message));
            }
            state.servers.remove(name);
            Ok(())
        })
    }

    fn server<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<Server>, DriverError>> {
        Box::pin(async move {
            let mut state = self.state();
            state.ticks += 1;
            let tick = state.ticks;
            Ok(state.servers.get_mut(name).map(|(server, _)| {
                server.cpu_percentage = usage(name, tick, 1);
                server.memory_percentage = usage(name, tick, 2);
                server.clone()
            }))
        })
    }
}
