//! The interval lists of an Indexed Job (`1,3-5,7`), as kube-apiserver v1.31's
//! `pkg/apis/batch/validation/validation.go` reads them (`validateIndexesFormat`,
//! `parseIndexInterval`, `validateFailedIndexesNotOverlapCompleted`): a success policy's
//! `succeededIndexes` and a status's `completedIndexes` and `failedIndexes`.

use crate::semantics::field_error::go_quote;

/// An interval list that does not parse, with Go's words for why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IndexesError(pub(crate) String);

impl std::fmt::Display for IndexesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `strconv.Atoi` of one limit: an optional sign and decimal digits (Rust's `i64` parsing takes
/// the same text, a leading `+` included).
fn limit(text: &str) -> Result<i64, IndexesError> {
    text.parse::<i64>().map_err(|_| {
        IndexesError(format!(
            "cannot convert string to integer for index: {}",
            go_quote(text)
        ))
    })
}

/// `parseIndexInterval`: `x` or `x-y` with `x < y`, both below `completions`.
pub(crate) fn parse_interval(interval: &str, completions: i64) -> Result<(i64, i64), IndexesError> {
    let limits: Vec<&str> = interval.split('-').collect();
    if limits.len() > 2 {
        return Err(IndexesError(format!(
            "the fragment {} violates the requirement that an index interval can have at most two parts separated by '-'",
            go_quote(interval)
        )));
    }
    let too_large = |text: &str| IndexesError(format!("too large index: {}", go_quote(text)));
    let x = limit(limits[0])?;
    if x >= completions {
        return Err(too_large(limits[0]));
    }
    let Some(second) = limits.get(1) else {
        return Ok((x, x));
    };
    let y = limit(second)?;
    if y >= completions {
        return Err(too_large(second));
    }
    if x >= y {
        return Err(IndexesError(format!(
            "non-increasing order, previous: {x}, current: {y}"
        )));
    }
    Ok((x, y))
}

/// `validateIndexesFormat`: the intervals of a comma-separated list, each after the last; the
/// number of indexes they hold. An empty list holds none.
pub(crate) fn count_indexes(indexes: &str, completions: i64) -> Result<i64, IndexesError> {
    if indexes.is_empty() {
        return Ok(0);
    }
    let mut last: Option<i64> = None;
    let mut total = 0;
    for interval in indexes.split(',') {
        let (x, y) = parse_interval(interval, completions)?;
        if let Some(previous) = last.filter(|previous| *previous >= x) {
            return Err(IndexesError(format!(
                "non-increasing order, previous: {previous}, current: {x}"
            )));
        }
        total += y - x + 1;
        last = Some(y);
    }
    Ok(total)
}

/// A walk over the intervals of a list, one parsed at a time (`None` when it does not parse).
struct Walk<'a> {
    intervals: Vec<&'a str>,
    position: usize,
    current: Option<(i64, i64)>,
    completions: i64,
}

impl<'a> Walk<'a> {
    fn new(list: &'a str, completions: i64) -> Self {
        let intervals: Vec<&str> = list.split(',').collect();
        let current = parse_interval(intervals[0], completions).ok();
        Self {
            intervals,
            position: 0,
            current,
            completions,
        }
    }

    fn done(&self) -> bool {
        self.position >= self.intervals.len()
    }

    /// On to the next interval; past the last one, the current one stays (Go's loop ends).
    fn advance(&mut self) {
        self.position += 1;
        if let Some(next) = self.intervals.get(self.position) {
            self.current = parse_interval(next, self.completions).ok();
        }
    }
}

/// `validateFailedIndexesNotOverlapCompleted`: walks both lists in order and names the first
/// index in both. Intervals that do not parse are skipped: their format is reported elsewhere.
pub(crate) fn overlap_error(completed: &str, failed: &str, completions: i64) -> Option<IndexesError> {
    if completed.is_empty() || failed.is_empty() {
        return None;
    }
    let (mut c, mut f) = (Walk::new(completed, completions), Walk::new(failed, completions));
    while !c.done() && !f.done() {
        match (c.current, f.current) {
            (None, _) => c.advance(),
            (_, None) => f.advance(),
            (Some((cx, cy)), Some((fx, fy))) => {
                if cx <= fy && fx <= cy {
                    return Some(IndexesError(format!(
                        "failedIndexes and completedIndexes overlap at index: {}",
                        cx.max(fx)
                    )));
                }
                if cx <= fx { c.advance() } else { f.advance() }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(result: Result<i64, IndexesError>) -> String {
        result.map_or_else(|e| e.0, |n| n.to_string())
    }

    #[test]
    fn interval_lists_should_count_their_indexes() {
        assert_eq!(count_indexes("", 3), Ok(0));
        assert_eq!(count_indexes("0,2-4,+6", 7), Ok(5));
    }

    #[test]
    fn interval_lists_should_be_refused_in_go_words() {
        let cases = [
            (
                "1-2-3",
                "the fragment \"1-2-3\" violates the requirement that an index interval can have at most two parts separated by '-'",
            ),
            ("a", "cannot convert string to integer for index: \"a\""),
            ("1-", "cannot convert string to integer for index: \"\""),
            ("1-7", "too large index: \"7\""),
            ("3-3", "non-increasing order, previous: 3, current: 3"),
            ("1-3,2", "non-increasing order, previous: 3, current: 2"),
        ];
        for (list, expected) in cases {
            assert_eq!(why(count_indexes(list, 5)), expected, "{list}");
        }
    }

    #[test]
    fn overlaps_should_name_the_first_shared_index() {
        assert_eq!(overlap_error("1-3,7", "4-6", 10), None);
        assert_eq!(
            overlap_error("1-3,7", "5-8", 10).map(|e| e.0),
            Some("failedIndexes and completedIndexes overlap at index: 7".to_owned())
        );
        // An interval that does not parse is passed over.
        assert_eq!(
            overlap_error("x,2", "2", 10).map(|e| e.0),
            Some("failedIndexes and completedIndexes overlap at index: 2".to_owned())
        );
    }
}
