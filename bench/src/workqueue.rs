//! Suite 3, workqueue: add/get/done cycles per second with 1 and 2 workers (with and without
//! client-go's metrics, next to a plain tokio channel that neither coalesces nor tracks what is
//! in flight), and the coalescing check: 1 M adds of 1k keys yield at most 1k gets plus one per
//! key re-added after it was taken for processing.

use std::collections::HashMap;
use std::time::Instant;

use codegen_runtime::WorkQueue;
use codegen_runtime::workqueue::WorkqueueMetrics;

use crate::error::BenchError;
use crate::stats::{Table, human, verdict};

/// Controller-style keys, `namespace/name`.
fn keys(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("ns-{:02}/foo-{i:06}", i % 100)).collect()
}

/// Cycles per second of `workers` tasks each adding a key, getting one and marking it done.
async fn cycles(queue: WorkQueue<String>, workers: usize, per_worker: usize) -> f64 {
    let keys = std::sync::Arc::new(keys(10_000));
    let started = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            let (queue, keys) = (queue.clone(), keys.clone());
            tokio::spawn(async move {
                for i in 0..per_worker {
                    queue.add(keys[(i * workers + w) % keys.len()].clone());
                    let key = queue.get().await.expect("the queue is not shut down");
                    queue.done(&key);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a worker panicked");
    }
    (workers * per_worker) as f64 / started.elapsed().as_secs_f64()
}

/// The same loop over an unbounded tokio channel.
async fn channel_cycles(workers: usize, per_worker: usize) -> f64 {
    let keys = std::sync::Arc::new(keys(10_000));
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<String>();
    let receiver = std::sync::Arc::new(tokio::sync::Mutex::new(receiver));
    let started = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            let (sender, receiver, keys) = (sender.clone(), receiver.clone(), keys.clone());
            tokio::spawn(async move {
                for i in 0..per_worker {
                    sender
                        .send(keys[(i * workers + w) % keys.len()].clone())
                        .expect("the receiver lives");
                    let key = receiver.lock().await.recv().await.expect("the sender lives");
                    std::hint::black_box(key);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a worker panicked");
    }
    (workers * per_worker) as f64 / started.elapsed().as_secs_f64()
}

/// 1 M adds of 1k distinct keys from one producer, with a key taken for processing every 997
/// adds and done 300 adds later. Returns the gets, and the bound they must respect: 1k, plus one
/// for each time a key was added again after it had been taken (while or after processing it).
/// More gets would mean a duplicate was handed out; a key handed out while being processed is
/// an error.
async fn coalescing(adds: usize) -> Result<(usize, usize), BenchError> {
    let queue: WorkQueue<String> = WorkQueue::new();
    let keys = keys(1_000);
    let mut taken: HashMap<String, bool> = HashMap::new();
    let mut processing: Vec<(String, usize)> = Vec::new();
    let (mut gets, mut readded) = (0, 0);
    for a in 0..adds {
        let key = &keys[a % keys.len()];
        if taken.insert(key.clone(), false) == Some(true) {
            readded += 1;
        }
        queue.add(key.clone());
        if a % 997 == 0 {
            let key = queue.get().await.expect("keys are queued");
            gets += 1;
            if processing.iter().any(|(k, _)| *k == key) {
                return Err(BenchError::check(format!(
                    "{key} was handed out while it was being processed"
                )));
            }
            taken.insert(key.clone(), true);
            processing.push((key, a));
        }
        processing.retain(|(key, since)| {
            let finished = a - since >= 300;
            if finished {
                queue.done(key);
            }
            !finished
        });
    }
    for (key, _) in processing.drain(..) {
        queue.done(&key);
    }
    while !queue.is_empty() {
        let key = queue.get().await.expect("keys are queued");
        gets += 1;
        queue.done(&key);
    }
    Ok((gets, keys.len() + readded))
}

/// Runs the suite; fails if the queue hands out more than the bound allows.
pub fn suite(cycles_per_worker: usize, adds: usize, rounds: usize) -> Result<(), BenchError> {
    let runtime = crate::runtime()?;
    let mut table = Table::default();
    for _ in 0..rounds {
        for workers in [1, 2] {
            let per_worker = cycles_per_worker / workers;
            let plain = runtime.block_on(cycles(WorkQueue::new(), workers, per_worker));
            table.record(&format!("{workers} worker(s)"), "WorkQueue cycles/s", plain);
            let metrics = WorkqueueMetrics::new();
            let queue = WorkQueue::builder().name("bench").metrics(&metrics).build();
            let measured = runtime.block_on(cycles(queue, workers, per_worker));
            table.record(&format!("{workers} worker(s)"), "with metrics", measured);
            let channel = runtime.block_on(channel_cycles(workers, per_worker));
            table.record(&format!("{workers} worker(s)"), "tokio mpsc (no coalescing)", channel);
        }
    }
    let (gets, bound) = runtime.block_on(coalescing(adds))?;
    println!("\n### Workqueue: {cycles_per_worker} cycles per run, {rounds} rounds\n");
    print!("{table}");
    println!();
    for workers in ["1 worker(s)", "2 worker(s)"] {
        let rate = table.samples(workers, "WorkQueue cycles/s").median();
        println!(
            "{}",
            verdict(
                &format!("cycles, {workers}"),
                format!("{}/s", human(rate)),
                "≥ 500k/s",
                rate >= 5e5
            )
        );
    }
    println!(
        "{}",
        verdict(
            "coalescing",
            format!("{adds} adds of 1k keys → {gets} gets (bound {bound})"),
            "≤ 1k + keys re-added after being taken",
            gets <= bound
        )
    );
    if gets > bound {
        return Err(BenchError::check(format!(
            "{adds} adds of 1k keys gave {gets} gets, more than the bound {bound}"
        )));
    }
    Ok(())
}
