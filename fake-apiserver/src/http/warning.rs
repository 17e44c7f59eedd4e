//! The `Warning` response header as kube-apiserver's warning recorder writes it
//! (`299 - "text"`, RFC 7234 with Go's quoting), which clients such as kubectl print.

use http::{HeaderMap, header};

use crate::semantics::field_error::go_quote;

/// `Warning: 299 - "text"` headers, one per warning, as kube-apiserver's warning recorder
/// writes them (duplicates once).
pub(crate) fn add_warnings(headers: &mut HeaderMap, warnings: Vec<String>) {
    let mut sent: Vec<String> = Vec::new();
    for text in warnings {
        if sent.contains(&text) {
            continue;
        }
        let quoted = format!("299 - {}", go_quote(&text));
        if let Ok(value) = header::HeaderValue::from_bytes(quoted.as_bytes()) {
            headers.append(header::WARNING, value);
        }
        sent.push(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_should_be_quoted_as_go_quotes_them_and_sent_once() {
        let mut headers = HeaderMap::new();
        let text = "unknown field \"spec.x\"".to_owned();
        add_warnings(&mut headers, vec![text.clone(), text, "a\\b\tc".to_owned()]);
        let sent: Vec<&str> = headers
            .get_all(header::WARNING)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(sent, [r#"299 - "unknown field \"spec.x\"""#, r#"299 - "a\\b\tc""#]);
    }
}
