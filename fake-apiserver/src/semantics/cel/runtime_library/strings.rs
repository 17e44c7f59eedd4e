//! cel-go's ext strings library at version 0 (`ext/strings.go`), which kube-apiserver 1.28 declares: the crate's `extensions::strings` is a later version (with `format`, `strings.quote`, `reverse`) and differs on empty strings and offsets.

use std::borrow::Cow;

use cel::common::types::{CelInt, CelList, CelString, LIST_TYPE, STRING_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError, add_member_overload, add_overload};

use super::net_url::Url;
use super::{go_error, no_such_overload};

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    add_member_overload!(env, fn char_at: (CelString, CelInt) -> Result<CelString>,
        id = "string_char_at_int")?;
    add_member_overload!(env, fn index_of: (CelString, CelString) -> Result<CelInt>,
        id = "string_index_of_string")?;
    add_member_overload!(env, fn index_of_offset: (CelString, CelString, CelInt) -> Result<CelInt>,
        name = "indexOf", id = "string_index_of_string_int")?;
    add_member_overload!(env, fn last_index_of: (CelString, CelString) -> Result<CelInt>,
        id = "string_last_index_of_string")?;
    add_member_overload!(env, fn last_index_of_offset: (CelString, CelString, CelInt) -> Result<CelInt>,
        name = "lastIndexOf", id = "string_last_index_of_string_int")?;
    add_member_overload!(env, fn lower_ascii: (CelString) -> CelString, id = "string_lower_ascii")?;
    add_member_overload!(env, fn upper_ascii: (CelString) -> CelString, id = "string_upper_ascii")?;
    add_member_overload!(env, fn replace: (CelString, CelString, CelString) -> CelString,
        id = "string_replace_string_string")?;
    add_member_overload!(env, fn replace_n: (CelString, CelString, CelString, CelInt) -> CelString,
        name = "replace", id = "string_replace_string_string_int")?;
    add_member_overload!(env, fn split: (CelString, CelString) -> CelList, id = "string_split_string")?;
    add_member_overload!(env, fn split_n: (CelString, CelString, CelInt) -> CelList,
        name = "split", id = "string_split_string_int")?;
    add_member_overload!(env, fn substring: (CelString, CelInt) -> Result<CelString>,
        id = "string_substring_int")?;
    add_member_overload!(env, fn substring_range: (CelString, CelInt, CelInt) -> Result<CelString>,
        name = "substring", id = "string_substring_int_int")?;
    add_member_overload!(env, fn trim: (CelString) -> CelString, id = "string_trim")?;
    add_overload!(env, fn quote: (CelString) -> CelString, name = "strings.quote", id = "strings_quote")?;
    // Any list: the guard looks at the elements.
    env.add_member_overload("join", "list_join", LIST_TYPE, vec![], join)?;
    env.add_member_overload("join", "list_join_string", LIST_TYPE, vec![STRING_TYPE], join)
}

/// `strings.quote` (version 1): the string between double quotes, its escapable characters
/// escaped.
fn quote(s: &CelString<'_>) -> CelString<'static> {
    let mut quoted = String::from("\"");
    for c in s.chars() {
        match c {
            '\u{7}' => quoted.push_str("\\a"),
            '\u{8}' => quoted.push_str("\\b"),
            '\u{c}' => quoted.push_str("\\f"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            '\u{b}' => quoted.push_str("\\v"),
            '\\' => quoted.push_str("\\\\"),
            '"' => quoted.push_str("\\\""),
            other => quoted.push(other),
        }
    }
    quoted.push('"');
    quoted.into()
}

fn out_of_range(function: &str, index: i64) -> ExecutionError {
    go_error(function, format!("index out of range: {index}"))
}

fn char_at(s: &CelString<'_>, index: &CelInt) -> Result<CelString<'static>, ExecutionError> {
    let index = *index.inner();
    let len = s.chars().count();
    match usize::try_from(index) {
        Ok(i) if i < len => Ok(s.chars().nth(i).map(String::from).unwrap_or_default().into()),
        Ok(i) if i == len => Ok(String::new().into()),
        _ => Err(out_of_range("charAt", index)),
    }
}

fn index_of(s: &CelString<'_>, sub: &CelString<'_>) -> Result<CelInt, ExecutionError> {
    index_of_offset(s, sub, &CelInt::from(0))
}

/// The first code point index at or after `offset` where `sub` starts. An empty `sub` is found
/// at `offset`, whatever it is; otherwise `offset` must lie within `s`, so nothing is found in
/// an empty string but an error.
fn index_of_offset(s: &CelString<'_>, sub: &CelString<'_>, offset: &CelInt) -> Result<CelInt, ExecutionError> {
    let offset = *offset.inner();
    if sub.is_empty() {
        return Ok(offset.into());
    }
    let (runes, sub) = (code_points(s), code_points(sub));
    let start = in_bounds(offset, runes.len()).ok_or_else(|| out_of_range("indexOf", offset))?;
    let found = (start..=runes.len().saturating_sub(sub.len())).find(|&i| runes[i..].starts_with(&sub));
    Ok(found.map_or(-1, |i| i as i64).into())
}

fn last_index_of(s: &CelString<'_>, sub: &CelString<'_>) -> Result<CelInt, ExecutionError> {
    let len = s.chars().count() as i64;
    if sub.is_empty() {
        return Ok(len.into());
    }
    last_index_of_offset(s, sub, &CelInt::from(len - 1))
}

/// The last code point index at or before `offset` where `sub` starts, with `indexOf`'s
/// treatment of an empty `sub` and of `offset`.
fn last_index_of_offset(s: &CelString<'_>, sub: &CelString<'_>, offset: &CelInt) -> Result<CelInt, ExecutionError> {
    let offset = *offset.inner();
    if sub.is_empty() {
        return Ok(offset.into());
    }
    let (runes, sub) = (code_points(s), code_points(sub));
    let start = in_bounds(offset, runes.len()).ok_or_else(|| out_of_range("lastIndexOf", offset))?;
    let last = runes.len().checked_sub(sub.len()).map(|last| last.min(start));
    let found = last.and_then(|last| (0..=last).rev().find(|&i| runes[i..].starts_with(&sub)));
    Ok(found.map_or(-1, |i| i as i64).into())
}

fn code_points(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// `index` as a position within a sequence of `len`, excluding its end.
fn in_bounds(index: i64, len: usize) -> Option<usize> {
    usize::try_from(index).ok().filter(|&i| i < len)
}

fn lower_ascii(s: &CelString<'_>) -> CelString<'static> {
    s.to_ascii_lowercase().into()
}

fn upper_ascii(s: &CelString<'_>) -> CelString<'static> {
    s.to_ascii_uppercase().into()
}

/// Go's `strings.ReplaceAll`, which Rust's `replace` matches, an empty `old` included.
fn replace(s: &CelString<'_>, old: &CelString<'_>, new: &CelString<'_>) -> CelString<'static> {
    s.replace(old.inner(), new.inner()).into()
}

/// Go's `strings.Replace`: the first `n` occurrences, all of them when `n` is negative.
fn replace_n(s: &CelString<'_>, old: &CelString<'_>, new: &CelString<'_>, n: &CelInt) -> CelString<'static> {
    match usize::try_from(*n.inner()) {
        Ok(n) => s.replacen(old.inner(), new.inner(), n).into(),
        Err(_) => replace(s, old, new),
    }
}

fn split(s: &CelString<'_>, separator: &CelString<'_>) -> CelList<'static> {
    split_n(s, separator, &CelInt::from(-1))
}

/// Go's `strings.SplitN`: at most `n` parts (none for 0, all for a negative `n`), the last
/// holding the rest; an empty separator splits between code points.
fn split_n(s: &CelString<'_>, separator: &CelString<'_>, n: &CelInt) -> CelList<'static> {
    let limit = usize::try_from(*n.inner()).unwrap_or(usize::MAX);
    let parts: Vec<&str> = match (limit, separator.is_empty()) {
        (0, _) => Vec::new(),
        (limit, true) => {
            let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).take(limit).collect();
            let ends = starts.iter().skip(1).copied().chain([s.len()]);
            let mut parts: Vec<&str> = starts.iter().zip(ends).map(|(&a, b)| &s[a..b]).collect();
            if let (Some(last), Some(&start)) = (parts.last_mut(), starts.last()) {
                *last = &s[start..];
            }
            parts
        }
        (limit, false) => s.splitn(limit, separator.inner()).collect(),
    };
    let parts = parts
        .into_iter()
        .map(|p| Box::new(CelString::from(p.to_owned())) as Box<dyn Val>);
    parts.collect::<Vec<_>>().into()
}

fn substring(s: &CelString<'_>, start: &CelInt) -> Result<CelString<'static>, ExecutionError> {
    let len = s.chars().count() as i64;
    let start = *start.inner();
    if !(0..=len).contains(&start) {
        return Err(out_of_range("substring", start));
    }
    Ok(s.chars().skip(start as usize).collect::<String>().into())
}

fn substring_range(s: &CelString<'_>, start: &CelInt, end: &CelInt) -> Result<CelString<'static>, ExecutionError> {
    let (start, end) = (*start.inner(), *end.inner());
    let len = s.chars().count() as i64;
    if start > end {
        let text = format!("invalid substring range. start: {start}, end: {end}");
        return Err(go_error("substring", text));
    }
    for index in [start, end] {
        if !(0..=len).contains(&index) {
            return Err(out_of_range("substring", index));
        }
    }
    let taken = s.chars().skip(start as usize).take((end - start) as usize);
    Ok(taken.collect::<String>().into())
}

/// Go's `strings.TrimSpace`: its white space (`unicode.IsSpace`) is Rust's.
fn trim(s: &CelString<'_>) -> CelString<'static> {
    s.trim().to_owned().into()
}

/// `list.join()` and `list.join(separator)`: version 0 converts the list to a `[]string`. The
/// call's guard takes a list whose first element is a string; a later one fails its
/// `ConvertToNative`, with its type's text.
fn join<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (list, separator) = match args.as_slice() {
        [list] => (list.as_ref(), ""),
        [list, separator] => {
            let separator = separator.downcast_ref::<CelString>();
            (list.as_ref(), separator.map_or("", |s| s.inner()))
        }
        _ => return Err(ExecutionError::invalid_argument_count(1, args.len())),
    };
    let mut items = Vec::new();
    if let Some(iterable) = list.as_iterable() {
        let mut iterator = iterable.iter();
        while let Some(item) = iterator.next() {
            items.push(item);
        }
    }
    let mut parts: Vec<Cow<'_, str>> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match (item.downcast_ref::<CelString>(), item.downcast_ref::<Url>()) {
            (Some(s), _) => parts.push(Cow::Borrowed(s.inner())),
            (None, _) if i == 0 => return Err(no_such_overload("join", &args)),
            // A URL converts to a Go string (`url.go`'s `ConvertToNative`).
            (None, Some(url)) => parts.push(Cow::Owned(url.go_string())),
            (None, None) => return Err(go_error("join", element_conversion_error(*item))),
        }
    }
    Ok(CowVal::owned(CelString::from(parts.join(separator))))
}

/// The error of `ConvertToNative` to a Go `string` of a non-string value (`common/types/*.go`).
fn element_conversion_error(value: &dyn Val) -> String {
    match value.get_type().name() {
        name @ ("int" | "uint") => format!("unsupported type conversion from '{name}' to string"),
        "double" => "type conversion error from Double to 'string'".to_owned(),
        "bool" => "type conversion error from bool to 'string'".to_owned(),
        "bytes" => "type conversion error from Bytes to 'string'".to_owned(),
        "list" => "type conversion error from list to 'string'".to_owned(),
        "map" => "type conversion error from map to 'string'".to_owned(),
        "google.protobuf.Timestamp" => "type conversion error from 'Timestamp' to 'string'".to_owned(),
        "google.protobuf.Duration" => "type conversion error from 'Duration' to 'string'".to_owned(),
        name => format!("type conversion error from '{name}' to 'string'"),
    }
}

#[cfg(test)]
mod tests {
    // Expected values are cel-go v0.16.1's with `ext.Strings(ext.StringsVersion(0))`.
    use super::super::tests::{check, evaluate, strings};

    #[test]
    fn char_at_counts_code_points() {
        check("'a©c'.charAt(1)", Ok("©".into()));
        check("'abc'.charAt(3)", Ok("".into()));
        check("'abc'.charAt(4)", Err("index out of range: 4"));
        check("'abc'.charAt(-1)", Err("index out of range: -1"));
    }

    #[test]
    fn index_of_takes_any_offset_for_an_empty_string_and_none_past_the_end() {
        check("'hello mellow'.indexOf('ello')", Ok(1.into()));
        check("'hello mellow'.indexOf('jello')", Ok((-1).into()));
        check("'ta©o©αT'.indexOf('©', 3)", Ok(4.into()));
        check("'abc'.indexOf('', 20)", Ok(20.into()));
        check("'abc'.indexOf('', -1)", Ok((-1).into()));
        check("'abc'.indexOf('abcd')", Ok((-1).into()));
        check("''.indexOf('a')", Err("index out of range: 0"));
        check("'abc'.indexOf('c', 3)", Err("index out of range: 3"));
        check("'hello mellow'.lastIndexOf('ello')", Ok(7.into()));
        check("'hello mellow'.lastIndexOf('')", Ok(12.into()));
        check("'bananananana'.lastIndexOf('nana', 7)", Ok(6.into()));
        check("'abc'.lastIndexOf('', 20)", Ok(20.into()));
        check("'ab'.lastIndexOf('abc')", Ok((-1).into()));
        check("''.lastIndexOf('@@')", Err("index out of range: -1"));
        check("'abc'.lastIndexOf('a', 3)", Err("index out of range: 3"));
    }

    #[test]
    fn case_trim_and_replace_follow_go() {
        check(
            "'TacoCÆt'.lowerAscii() + 'TacoCÆt'.upperAscii()",
            Ok("tacocÆtTACOCÆT".into()),
        );
        check("' \\u0085\\u00a0\\u1680text\\t'.trim()", Ok("text".into()));
        check("'\\u180etext\\u200b'.trim()", Ok("\u{180e}text\u{200b}".into()));
        check("'abc'.replace('', '_')", Ok("_a_b_c_".into()));
        check("'hello hello'.replace('he', 'we', 1)", Ok("wello hello".into()));
        check("'hello hello'.replace('he', 'we', -1)", Ok("wello wello".into()));
        check("'hello hello'.replace('he', 'we', 0)", Ok("hello hello".into()));
    }

    #[test]
    fn split_follows_go_split_n() {
        check("'a,b,c'.split(',')", Ok(strings(&["a", "b", "c"])));
        check("'a,b,c'.split(',', 2)", Ok(strings(&["a", "b,c"])));
        check("'a,b,c'.split(',', 0)", Ok(strings(&[])));
        check("''.split(',')", Ok(strings(&[""])));
        check("''.split('')", Ok(strings(&[])));
        check("'a©c'.split('')", Ok(strings(&["a", "©", "c"])));
        check("'a©c'.split('', 2)", Ok(strings(&["a", "©c"])));
        check("'a©c'.split('', 9)", Ok(strings(&["a", "©", "c"])));
    }

    #[test]
    fn substring_checks_its_range() {
        check("'tacocat'.substring(4)", Ok("cat".into()));
        check("'ta©o©αT'.substring(2, 6)", Ok("©o©α".into()));
        check("'tacocat'.substring(8)", Err("index out of range: 8"));
        check("'tacocat'.substring(-1, 2)", Err("index out of range: -1"));
        check("'tacocat'.substring(1, 50)", Err("index out of range: 50"));
        check(
            "'tacocat'.substring(4, 3)",
            Err("invalid substring range. start: 4, end: 3"),
        );
    }

    #[test]
    fn join_converts_every_element_to_a_string() {
        check("['a', 'b'].join()", Ok("ab".into()));
        check("['a', 'b'].join('-')", Ok("a-b".into()));
        check("[].join('-')", Ok("".into()));
        check("dyn([1]).join()", Err("no such overload: join(list)"));
        check("dyn([1]).join('-')", Err("no such overload: join(list, string)"));
        check(
            "['a', dyn(1)].join()",
            Err("unsupported type conversion from 'int' to string"),
        );
        check(
            "['a', dyn(1.5)].join()",
            Err("type conversion error from Double to 'string'"),
        );
        check(
            "['a', dyn(null)].join()",
            Err("type conversion error from 'null_type' to 'string'"),
        );
        check(
            "['a', dyn(url('https://e.com/a b'))].join()",
            Ok("ahttps://e.com/a%20b".into()),
        );
    }

    #[test]
    fn version_3_functions_are_not_declared_and_version_1_ones_are() {
        // The checker decides which a rule of an environment may call; the runtime has them all.
        assert!(evaluate("'abc'.reverse()").is_err());
        check("strings.quote('a\\\"b\\n')", Ok(r#""a\"b\n""#.into()));
        check("'a'.format([])", Ok("a".into()));
    }

    #[test]
    fn mistyped_calls_report_their_runtime_types() {
        check("dyn(1).charAt(1)", Err("no such overload: charAt(int, int)"));
        check("dyn(1).lowerAscii()", Err("no such overload: lowerAscii(int)"));
        check(
            "'a'.replace(dyn(1), 'b')",
            Err("no such overload: replace(string, int, string)"),
        );
        check("['a'].join(dyn(1))", Err("no such overload: join(list, int)"));
    }
}
