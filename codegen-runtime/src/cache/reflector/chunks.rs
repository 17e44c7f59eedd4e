//! A watch's body read by a task of its own, a few chunks ahead of the decode.
//!
//! Why a task: when the watch takes a chunk from hyper's body, it wakes hyper's connection task
//! (whose channel holds one chunk) into its own worker's LIFO slot, which tokio's other worker
//! does not steal; so the next chunk left the socket only when the watch waited for it
//! (BENCHMARKS.md). This task is woken by the body instead, on whichever worker is free, and
//! keeps up to [`AHEAD`] chunks waiting for the decode.

use bytes::Bytes;
use http_body_util::BodyExt;
use kube::client::Body;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How many chunks may wait for the decode. Measured (BENCHMARKS.md): 16 gave 10–15% more
/// events/s than reading the body in the watch's own task, 8 a little less, and 2 fewer than
/// none, as the task then stopped and was woken again at nearly every chunk. A chunk is what
/// the server flushed (kube-apiserver flushes each event), so under a backlog this holds a few
/// events to a few MiB per watch.
const AHEAD: usize = 16;

/// A chunk of the body, or why it could not be read.
pub(super) type Chunk = Result<Bytes, String>;

/// The data chunks of one watch body, in order.
pub(super) struct Chunks {
    read: mpsc::Receiver<Chunk>,
    task: JoinHandle<()>,
}

impl Chunks {
    /// Starts reading `body`.
    pub(super) fn start(body: Body) -> Self {
        let (sender, read) = mpsc::channel(AHEAD);
        let task = tokio::spawn(read_body(body, sender));
        Chunks { read, task }
    }

    /// The next chunk; `None` once the body has ended (after an error, too).
    pub(super) async fn next(&mut self) -> Option<Chunk> {
        self.read.recv().await
    }
}

impl Drop for Chunks {
    /// A watch given up (it ended, failed or relists) reads nothing more.
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads `body` frame by frame, sending on its data until it ends or fails.
async fn read_body(mut body: Body, chunks: mpsc::Sender<Chunk>) {
    while let Some(frame) = body.frame().await {
        let chunk = match frame {
            Ok(frame) => match frame.into_data() {
                Ok(data) => Ok(data),
                // Trailers carry no events.
                Err(_) => continue,
            },
            Err(error) => Err(error.to_string()),
        };
        let failed = chunk.is_err();
        if chunks.send(chunk).await.is_err() || failed {
            return;
        }
    }
}
