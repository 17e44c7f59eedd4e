//! A watch body split into its newline-delimited events, without copying the lines that arrive
//! whole in one chunk (most of them): only a line split across chunks is assembled.

use bytes::{Bytes, BytesMut};

/// The lines of a watch body, fed chunk by chunk.
#[derive(Default)]
pub(super) struct Lines {
    /// What is left of the current chunk.
    chunk: Bytes,
    /// The start of a line whose end has not arrived yet.
    partial: BytesMut,
}

impl Lines {
    /// Adds the next chunk of the body. The previous one must have been read to its end.
    pub(super) fn push(&mut self, chunk: Bytes) {
        debug_assert!(self.chunk.is_empty(), "a chunk was pushed before the last one was read");
        self.chunk = chunk;
    }

    /// The next complete line, without its newline; `None` when the chunks so far hold no
    /// more (the rest is kept until its end arrives).
    pub(super) fn next_line(&mut self) -> Option<Bytes> {
        let Some(end) = memchr::memchr(b'\n', &self.chunk) else {
            if !self.chunk.is_empty() {
                self.partial.extend_from_slice(&self.chunk);
                self.chunk.clear();
            }
            return None;
        };
        let mut line = self.chunk.split_to(end + 1);
        line.truncate(end);
        if self.partial.is_empty() {
            return Some(line);
        }
        self.partial.extend_from_slice(&line);
        Some(self.partial.split().freeze())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(lines: &Lines) -> usize {
        lines.partial.len() + lines.chunk.len()
    }

    fn read(lines: &mut Lines) -> Vec<String> {
        std::iter::from_fn(|| lines.next_line())
            .map(|line| String::from_utf8(line.to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn lines_should_come_whole_whatever_the_chunks() {
        let body = b"{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\n";
        let whole = {
            let mut lines = Lines::default();
            lines.push(Bytes::from_static(body));
            read(&mut lines)
        };
        assert_eq!(whole, ["{\"a\":1}", "{\"b\":2}", "", "{\"c\":3}"]);
        // Every way to cut the body in three gives the same lines.
        for first in 0..body.len() {
            for second in first..body.len() {
                let mut lines = Lines::default();
                let mut seen = Vec::new();
                for part in [&body[..first], &body[first..second], &body[second..]] {
                    lines.push(Bytes::copy_from_slice(part));
                    seen.extend(read(&mut lines));
                }
                assert_eq!(seen, whole, "cut at {first} and {second}");
                assert_eq!(pending(&lines), 0);
            }
        }
    }

    #[test]
    fn an_unfinished_line_should_wait_for_its_end() {
        let mut lines = Lines::default();
        lines.push(Bytes::from_static(b"{\"a\":1}\n{\"b\""));
        assert_eq!(read(&mut lines), ["{\"a\":1}"]);
        assert_eq!(pending(&lines), 4);
        lines.push(Bytes::from_static(b":2}"));
        assert_eq!(read(&mut lines), Vec::<String>::new());
        lines.push(Bytes::from_static(b"\n"));
        assert_eq!(read(&mut lines), ["{\"b\":2}"]);
    }
}
