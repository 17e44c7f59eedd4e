//! A task of its own that produces what the reflector takes next, a bounded number ahead of it,
//! and stops when the reflector drops it (a list or watch given up on an error or a 410).
//!
//! Why a task: work spawned from the decoding task's worker waits in that worker's LIFO slot
//! (tokio's other workers do not steal it) until the decoding task yields, after what it
//! decodes is decoded (BENCHMARKS.md). A task of its own is woken by its socket, on whichever
//! worker is free, so the next page or chunk is fetched while the last one is decoded.

use std::future::Future;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// What a producing task sends, in order, up to a channel's capacity ahead.
pub(super) struct Ahead<T> {
    produced: mpsc::Receiver<T>,
    task: JoinHandle<()>,
}

impl<T: Send + 'static> Ahead<T> {
    /// Spawns `produce` with the sending end of a channel of `capacity`.
    pub(super) fn spawn<F, Fut>(capacity: usize, produce: F) -> Self
    where
        F: FnOnce(mpsc::Sender<T>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (sender, produced) = mpsc::channel(capacity);
        let task = tokio::spawn(produce(sender));
        Ahead { produced, task }
    }

    /// The next item; `None` once the task has sent its last.
    pub(super) async fn next(&mut self) -> Option<T> {
        self.produced.recv().await
    }
}

impl<T> Drop for Ahead<T> {
    fn drop(&mut self) {
        self.task.abort();
    }
}
