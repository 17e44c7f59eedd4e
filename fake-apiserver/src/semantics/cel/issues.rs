//! Compile errors written as cel-go writes them (`cel-go/common/{errors,error}.go`): sorted by
//! position, each `ERROR: <input>:line:column: message` with the source line and a caret.

use cel::ParseErrors;
use cel::common::ast::SourceInfo;

/// One parse or check error, at a 1-based line and 0-based column (in characters).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Issue {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

/// The line and column (in characters, as cel-go counts) of the byte `offset` of `source`,
/// where the `cel` crate's parser places an expression.
pub(crate) fn location(source: &str, offset: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 0);
    for (_, c) in source.char_indices().take_while(|(i, _)| *i < offset) {
        if c == '\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
    }
    (line, column)
}

/// An issue about the expression `id` of `source`, where the parser placed it.
pub(crate) fn at(source: &str, source_info: &SourceInfo, id: u64, message: String) -> Issue {
    let offset = source_info.offset_for(id).map_or(0, |(start, _)| start as usize);
    let (line, column) = location(source, offset);
    Issue { line, column, message }
}

/// The issues of a parse that failed.
pub(crate) fn from_parse(errors: &ParseErrors) -> Vec<Issue> {
    errors
        .errors
        .iter()
        .map(|e| Issue {
            line: e.pos.0.max(1) as usize,
            // The crate's column is the displayed, 1-based one.
            column: (e.pos.1 - 1).max(0) as usize,
            message: e.msg.clone(),
        })
        .collect()
}

/// `Errors.ToDisplayString`: the issues sorted by position (stably), one block each.
pub(crate) fn display(source: &str, issues: &[Issue]) -> String {
    let mut sorted: Vec<&Issue> = issues.iter().collect();
    sorted.sort_by_key(|i| (i.line, i.column));
    sorted
        .iter()
        .map(|issue| display_one(source, issue))
        .collect::<Vec<_>>()
        .join("\n")
}

fn display_one(source: &str, issue: &Issue) -> String {
    let mut text = format!("ERROR: <input>:{}:{}: {}", issue.line, issue.column + 1, issue.message);
    if let Some(snippet) = source.split('\n').nth(issue.line - 1) {
        let snippet = snippet.replace('\t', " ");
        text.push_str("\n | ");
        text.push_str(&snippet);
        text.push_str("\n | ");
        let mut chars = snippet.chars();
        for _ in 0..issue.column {
            match chars.next() {
                // A wide character is marked with a wide dot, as Go's `width.Widen` makes it.
                Some(c) if c.len_utf8() > 1 => text.push('\u{FF0E}'),
                Some(_) => text.push('.'),
                None => break,
            }
        }
        match chars.next() {
            Some(c) if c.len_utf8() > 1 => text.push('\u{FF3E}'),
            _ => text.push('^'),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_should_point_at_the_column_under_the_source_line() {
        let issue = Issue {
            line: 1,
            column: 4,
            message: "undefined field 'nope'".into(),
        };
        assert_eq!(
            display("self.nope == 1", &[issue]),
            "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^"
        );
    }

    #[test]
    fn issues_should_be_sorted_by_position() {
        let late = Issue {
            line: 1,
            column: 13,
            message: "b".into(),
        };
        let early = Issue {
            line: 1,
            column: 10,
            message: "a".into(),
        };
        let shown = display("self.shout() == 'A'", &[late, early]);
        assert!(shown.starts_with("ERROR: <input>:1:11: a"), "{shown}");
    }

    #[test]
    fn location_should_count_lines_and_characters() {
        assert_eq!(location("ab\ncd", 4), (2, 1));
        // `é` takes two bytes and one column.
        assert_eq!(location("'é' == x", 7), (1, 6));
    }
}
