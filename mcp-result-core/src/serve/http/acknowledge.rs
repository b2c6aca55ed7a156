//! The `taskIds` of a `subscriptions/listen` stream over streamable HTTP (SEP-2663 on the
//! SEP-2575 stream): read from the POST body into the HTTP request's extensions (rmcp's
//! filter type drops them; the listen reads them from there), and listed in the stream's
//! acknowledgement, the first `data:` line of its event stream that is one, which rmcp
//! writes without them.

use axum::body::{Body, Bytes};
use futures::StreamExt as _;

use crate::subscriptions::honour_task_ids;

/// The most of a stream held back while its acknowledgement has not come: past it the
/// stream goes on unchanged (rmcp sends the acknowledgement first, so this never binds).
const HELD_AT_MOST: usize = 1024 * 1024;

/// `body`, an event stream, with `ids` listed in its acknowledgement.
pub(crate) fn honour_in_stream(body: Body, ids: Vec<String>) -> Body {
    let mut held: Option<Vec<u8>> = Some(Vec::new());
    Body::from_stream(body.into_data_stream().map(move |chunk| {
        let chunk = chunk?;
        let Some(mut buffer) = held.take() else {
            return Ok::<Bytes, axum::Error>(chunk);
        };
        buffer.extend_from_slice(&chunk);
        let mut out = Vec::with_capacity(buffer.len() + 64);
        let mut start = 0;
        while let Some(end) = buffer[start..].iter().position(|&b| b == b'\n') {
            let line = &buffer[start..=start + end];
            start += end + 1;
            if let Some(patched) = patched(line, &ids) {
                out.extend_from_slice(&patched);
                out.extend_from_slice(&buffer[start..]);
                return Ok(Bytes::from(out));
            }
            out.extend_from_slice(line);
        }
        let rest = buffer.split_off(start);
        if rest.len() <= HELD_AT_MOST {
            held = Some(rest);
        } else {
            out.extend_from_slice(&rest);
        }
        Ok(Bytes::from(out))
    }))
}

/// `line` with `ids` listed, when it is the `data:` line of an acknowledgement.
fn patched(line: &[u8], ids: &[String]) -> Option<Vec<u8>> {
    let data = line.strip_prefix(b"data:")?;
    let data = data.strip_prefix(b" ").unwrap_or(data);
    let mut message: serde_json::Value = serde_json::from_slice(data).ok()?;
    if !honour_task_ids(&mut message, ids) {
        return None;
    }
    let mut out = b"data: ".to_vec();
    serde_json::to_writer(&mut out, &message).ok()?;
    out.push(b'\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_acknowledgement_lists_the_tasks_and_the_rest_is_unchanged() {
        let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{}}}"#;
        let events = format!("data:\nid: 0\n\ndata: {ack}\nid: 1\n\n: keep-alive\n\n");
        // Split mid-line, as a network would.
        let (a, b) = events.split_at(20);
        let chunks = vec![
            Ok::<_, std::io::Error>(Bytes::from(a.to_owned())),
            Ok(Bytes::from(b.to_owned())),
        ];
        let body = Body::from_stream(futures::stream::iter(chunks));
        let body = honour_in_stream(body, vec!["t1".into()]);
        let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        assert_eq!(
            text,
            "data:\nid: 0\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":1},\"notifications\":{\"taskIds\":[\"t1\"]}}}\nid: 1\n\n: keep-alive\n\n"
        );
    }
}
