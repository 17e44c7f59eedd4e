//! Suite 1, informer ingest: the clients of `ingest` run alternately, each in a fresh process,
//! against one benchmark server process per N, and compared round by round.

use std::process::{Command, Stdio};

use clap::ValueEnum;

use crate::error::BenchError;
use crate::ingest::{Client, Ingest};
use crate::process::ServerProcess;
use crate::process::self_exe;
use crate::stats::{Table, verdict};

/// The suite's sizes.
pub struct Sizes {
    /// Object counts, one server each.
    pub objects: Vec<usize>,
    /// Watch events after each list.
    pub events: usize,
    /// Rounds of every client.
    pub rounds: usize,
    /// The objects' variants: with the managed fields a real API server adds, and without.
    pub managed_fields: Vec<bool>,
}

impl Sizes {
    /// The sizes, or small ones for CI.
    pub fn new(quick: bool, rounds: usize) -> Self {
        let (objects, events, managed_fields) = if quick {
            (vec![1_000], 2_000, vec![true])
        } else {
            (vec![10_000, 100_000], 100_000, vec![true, false])
        };
        Self {
            objects,
            events,
            rounds,
            managed_fields,
        }
    }
}

fn ingest(url: &str, client: Client, streaming: bool, objects: usize, events: usize) -> Result<Ingest, BenchError> {
    // The name `bench ingest --client` takes, as clap derives it.
    let client_name = client
        .to_possible_value()
        .expect("no client is skipped")
        .get_name()
        .to_owned();
    let mut command = Command::new(self_exe()?);
    command.args(["ingest", "--url", url, "--client", &client_name]);
    command.args(["--objects", &objects.to_string(), "--events", &events.to_string()]);
    if streaming {
        command.arg("--streaming");
    }
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(BenchError::io("cannot run the ingest client"))?;
    if !output.status.success() {
        return Err(BenchError::Failed {
            program: format!("the {client_name} ingest client"),
            status: output.status,
            output: String::new(),
        });
    }
    serde_json::from_slice(&output.stdout).map_err(|e| BenchError::Output {
        program: format!("the {client_name} ingest client"),
        printed: String::from_utf8_lossy(&output.stdout).into_owned(),
        expected: format!("its results as JSON ({e})"),
    })
}

const CLIENTS: [(Client, &str); 8] = [
    (Client::Informer, "informer"),
    (Client::InformerDroppingManagedFields, INFORMER_DROPPING),
    (Client::ReflectorDroppingManagedFields, REFLECTOR_DROPPING),
    (Client::InformerEventsOnOwnTask, OWN_TASK),
    (Client::InformerWithHandler, WITH_HANDLER),
    (Client::InformerWithInlineHandler, WITH_INLINE_HANDLER),
    (Client::Reflector, "reflector"),
    (Client::Decode, "decode-only"),
];

/// The informer and the reflector with the same transform, which drops managed fields:
/// measured on paged lists of objects that have some.
const INFORMER_DROPPING: &str = "informer, managedFields dropped";
const REFLECTOR_DROPPING: &str = "reflector, managedFields dropped";
/// The informer applying watch events on the engine's task: measured on paged lists only.
const OWN_TASK: &str = "informer, events on own task";
/// The informer with one handler, as a controller's: measured on paged lists only.
const WITH_HANDLER: &str = "informer, one handler";
/// The same handler added inline: measured on paged lists only.
const WITH_INLINE_HANDLER: &str = "informer, one inline handler";

const LIST: &str = "list objects/s";
const WATCH: &str = "watch events/s";
const RSS: &str = "RSS after sync MiB";
const PEAK: &str = "peak RSS MiB";

/// The allocator every process of the suite runs with.
const ALLOCATOR: &str = if cfg!(feature = "mimalloc") {
    "mimalloc"
} else {
    "the system's allocator"
};

/// Runs the suite and prints, per N, the table, the targets' verdicts and what an object adds
/// to each client's RSS. Fails if a client's store ends with the wrong size or a stale object.
pub fn suite(sizes: &Sizes) -> Result<(), BenchError> {
    for &managed_fields in &sizes.managed_fields {
        let mut smaller: Option<(usize, Table)> = None;
        for &objects in &sizes.objects {
            let table = measure(sizes, managed_fields, objects)?;
            let variant = if managed_fields {
                "with managedFields"
            } else {
                "without managedFields"
            };
            println!(
                "\n### Informer ingest: N = {objects} VirtualMachines {variant}, M = {} watch events, {} rounds, {ALLOCATOR}\n",
                sizes.events, sizes.rounds
            );
            print!("{table}");
            print_verdicts(&table, managed_fields);
            if let Some((fewer, before)) = &smaller {
                print_bytes_per_object(before, *fewer, &table, objects);
            }
            smaller = Some((objects, table));
        }
    }
    Ok(())
}

/// Every client's rounds against one server of `objects` VirtualMachines.
fn measure(sizes: &Sizes, managed_fields: bool, objects: usize) -> Result<Table, BenchError> {
    let server = ServerProcess::start(objects, Some(sizes.events), managed_fields)?;
    let mut table = Table::default();
    for round in 1..=sizes.rounds {
        for streaming in [false, true] {
            for (client, name) in CLIENTS {
                let skipped = match client {
                    // The transform has nothing to drop from objects without managed fields.
                    Client::InformerDroppingManagedFields | Client::ReflectorDroppingManagedFields => {
                        streaming || !managed_fields
                    }
                    // Compared with the default on paged lists only.
                    Client::InformerEventsOnOwnTask
                    | Client::InformerWithHandler
                    | Client::InformerWithInlineHandler => streaming,
                    _ => false,
                };
                if skipped {
                    continue;
                }
                let result = ingest(&server.url, client, streaming, objects, sizes.events)?;
                eprintln!("round {round} {name} streaming={streaming}: {result:?}");
                if result.objects != objects || result.stale != 0 {
                    return Err(BenchError::check(format!(
                        "{name} (streaming={streaming}) ended with {} objects ({} stale); expected {objects}",
                        result.objects, result.stale
                    )));
                }
                let program = if streaming {
                    format!("{name}, streaming list")
                } else {
                    name.to_owned()
                };
                table.record(&program, LIST, result.list_per_s);
                table.record(&program, WATCH, result.watch_per_s);
                table.record(&program, RSS, result.rss_after_sync_mib);
                table.record(&program, PEAK, result.peak_rss_mib);
            }
        }
    }
    Ok(table)
}

/// The targets' verdicts for one table.
fn print_verdicts(table: &Table, managed_fields: bool) {
    for suffix in ["", ", streaming list"] {
        let (ours, theirs, decode) = (
            format!("informer{suffix}"),
            format!("reflector{suffix}"),
            format!("decode-only{suffix}"),
        );
        println!();
        for (metric, label, target, floor) in [
            (LIST, "list ingest", "≥ 1.3×", 1.3),
            (WATCH, "watch events", "≥ 1.5×", 1.5),
        ] {
            let ratio = table.ratio(&ours, &theirs, metric);
            let measured = format!(
                "{ratio:.2}× the reflector; informer {:.2}, reflector {:.2} of decode-only",
                table.ratio(&ours, &decode, metric),
                table.ratio(&theirs, &decode, metric)
            );
            println!(
                "{}",
                verdict(&format!("{label}{suffix}"), measured, target, ratio >= floor)
            );
        }
        for (metric, label, target, floor) in [
            (LIST, "list ingest", "≥ 0.8×", 0.8),
            (WATCH, "watch events", "≥ 0.7×", 0.7),
        ] {
            let ratio = table.ratio(&ours, &decode, metric);
            println!(
                "{}",
                verdict(
                    &format!("{label} against decode-only{suffix}"),
                    format!("{ratio:.2}×"),
                    target,
                    ratio >= floor
                )
            );
        }
        if suffix.is_empty() {
            for other in [OWN_TASK, WITH_HANDLER, WITH_INLINE_HANDLER] {
                println!(
                    "- watch events, {other}: {:.2}× the reflector, {:.2} of decode-only (for comparison)",
                    table.ratio(other, &theirs, WATCH),
                    table.ratio(other, &decode, WATCH)
                );
            }
        }
        let rss = table.ratio(&ours, &theirs, RSS);
        println!(
            "{}",
            verdict(
                &format!("RSS after sync{suffix}"),
                format!("{rss:.2}× the reflector's"),
                "≤ 0.9×",
                rss <= 0.9
            )
        );
    }
    if managed_fields {
        let rss = table.ratio(INFORMER_DROPPING, REFLECTOR_DROPPING, RSS);
        println!(
            "{}",
            verdict(
                "RSS after sync, the same transform on both sides (managedFields dropped)",
                format!("{rss:.2}× the reflector's"),
                "≤ 0.9×",
                rss <= 0.9
            )
        );
    }
}

/// What one more object adds to each client's RSS after sync, from the tables of `fewer` and
/// `objects` VirtualMachines (the process's own floor cancels out).
fn print_bytes_per_object(before: &Table, fewer: usize, after: &Table, objects: usize) {
    let added = objects as f64 - fewer as f64;
    let per_object: Vec<String> = after
        .programs()
        .iter()
        .filter(|program| before.programs().contains(program))
        .map(|program| {
            let grown = after.samples(program, RSS).median() - before.samples(program, RSS).median();
            format!("{program} {:.0}", grown * 1024.0 * 1024.0 / added)
        })
        .collect();
    println!(
        "- RSS after sync per object, N = {fewer} → {objects}, bytes: {}",
        per_object.join("; ")
    );
}
