//! One short line for an error of a write: kube's `Error::Api` displays the server's Status
//! twice (`{status} ({status:?})`), and kube-apiserver's message for an undecodable body quotes
//! the whole body, so a refused write would log several KB per retry.

use std::fmt;

/// The longest server message shown, in characters; the rest is left to debug logs.
const MAX_MESSAGE: usize = 300;

/// Displays a `kube::Error` in one line: an API error as `<code> <reason>: <message>`, the
/// message cut at 300 characters; any other error as kube displays it.
///
/// ```
/// # use codegen_runtime::controller::ErrorSummary;
/// let status = kube::core::Status::failure("the object provided is unrecognized", "BadRequest").with_code(400);
/// let error = kube::Error::Api(Box::new(status));
/// assert_eq!(ErrorSummary(&error).to_string(), "400 BadRequest: the object provided is unrecognized");
/// ```
pub struct ErrorSummary<'a>(pub &'a kube::Error);

impl fmt::Display for ErrorSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kube::Error::Api(status) = self.0 else {
            return fmt::Display::fmt(self.0, f);
        };
        write!(f, "{} {}: ", status.code, status.reason)?;
        match status.message.char_indices().nth(MAX_MESSAGE) {
            Some((cut, _)) => write!(
                f,
                "{}… ({} more bytes)",
                &status.message[..cut],
                status.message.len() - cut
            ),
            None => f.write_str(&status.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api_error(code: u16, reason: &str, message: &str) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status::failure(message, reason).with_code(code)))
    }

    #[test]
    fn an_api_error_is_one_line_with_code_reason_and_message() {
        let error = api_error(409, "Conflict", "the object has been modified");
        assert_eq!(
            ErrorSummary(&error).to_string(),
            "409 Conflict: the object has been modified"
        );
    }

    #[test]
    fn a_long_message_is_cut_on_a_character_boundary() {
        let body = "é".repeat(2_000);
        let error = api_error(400, "BadRequest", &format!("Object 'Kind' is missing in '{body}'"));
        let line = ErrorSummary(&error).to_string();
        assert!(
            line.starts_with("400 BadRequest: Object 'Kind' is missing in 'éé"),
            "{line}"
        );
        assert!(line.ends_with(" more bytes)"), "{line}");
        assert!(line.len() < 700, "{} bytes", line.len());
        assert!(error.to_string().len() > 7_000, "kube's own display repeats it");
    }

    #[test]
    fn other_errors_are_shown_as_kube_shows_them() {
        let error = kube::Error::LinesCodecMaxLineLengthExceeded;
        assert_eq!(ErrorSummary(&error).to_string(), error.to_string());
    }
}
