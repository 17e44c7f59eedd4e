//! A list's pages fetched ahead of their decode, by a task of their own ([`Ahead`]): the next
//! page is asked for as soon as a page has arrived, so the server builds and sends it while the
//! last one is decoded (with a remote server, the round trip overlaps the decode too). At most
//! two pages are ahead of the decode: one waiting for it, one more fetched meanwhile.

use bytes::Bytes;
use http_body_util::BodyExt;
use kube::api::ListParams;
use kube::client::Body;
use tokio::sync::mpsc;

use super::ahead::Ahead;
use crate::cache::wire;

/// A response's status code and body.
pub(super) type Fetched = Result<(u16, Bytes), kube::Error>;

/// One fetched page, and the continue token its head named, which the task followed.
pub(super) struct Page {
    pub(super) fetched: Fetched,
    pub(super) followed: Option<String>,
}

/// The pages of one list, in order, as they are fetched; none after a page whose head names
/// no next one, or a page that failed.
pub(super) type Pages = Ahead<Page>;

/// Starts fetching the list `params` asks for at `request`'s path, from its continue token.
pub(super) fn start(client: kube::Client, request: kube::core::Request, params: ListParams) -> Pages {
    // One page waits in the channel while the next is fetched and the last decoded.
    Ahead::spawn(1, |pages| fetch_pages(client, request, params, pages))
}

/// Fetches page after page, each asked for as soon as the one before has arrived, by the
/// continue token in its head.
async fn fetch_pages(
    client: kube::Client,
    request: kube::core::Request,
    mut params: ListParams,
    pages: mpsc::Sender<Page>,
) {
    loop {
        let fetched = match request.list(&params) {
            Ok(request) => fetch(client.clone(), request).await,
            Err(error) => Err(kube::Error::BuildRequest(error)),
        };
        let followed = match &fetched {
            Ok((status, bytes)) if (200..300).contains(status) => wire::continue_token(bytes),
            _ => None,
        };
        params.continue_token.clone_from(&followed);
        if pages.send(Page { fetched, followed }).await.is_err() || params.continue_token.is_none() {
            return;
        }
    }
}

/// Sends `request` and reads the whole answer.
async fn fetch(client: kube::Client, request: http::Request<Vec<u8>>) -> Fetched {
    let response = client.send(request.map(Body::from)).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?;
    Ok((status, body.to_bytes()))
}
