//! A watch's body read by a task of its own ([`Ahead`]), a few chunks ahead of the decode.
//!
//! When the watch took its chunks from hyper's body itself, it woke hyper's connection task
//! (whose channel holds one chunk) into its own worker's LIFO slot; so the next chunk left the
//! socket only when the watch waited for it.

use bytes::Bytes;
use http_body_util::BodyExt;
use kube::client::Body;
use tokio::sync::mpsc;

use super::ahead::Ahead;

/// How many chunks may wait for the decode. Measured (BENCHMARKS.md): 16 gave 10–15% more
/// events/s than reading the body in the watch's own task, 8 a little less, and 2 fewer than
/// none, as the task then stopped and was woken again at nearly every chunk. A chunk is what
/// the server flushed (kube-apiserver flushes each event), so under a backlog this holds a few
/// events to a few MiB per watch.
const AHEAD: usize = 16;

/// A chunk of the body, or why it could not be read.
pub(super) type Chunk = Result<Bytes, String>;

/// The data chunks of one watch body, in order; none after an error.
pub(super) type Chunks = Ahead<Chunk>;

/// Starts reading `body`.
pub(super) fn read(body: Body) -> Chunks {
    Ahead::spawn(AHEAD, |chunks| read_body(body, chunks))
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
