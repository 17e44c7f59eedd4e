//! Kubernetes' regex library (`apiserver/pkg/cel/library/regex.go`: `find`, `findAll`) and cel-go's `matches` (`common/types/string.go`), on the `regex` crate with patterns read as Go's `regexp` reads them.

use cel::common::types::{CelBool, CelInt, CelList, CelString, DYN_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError, add_member_overload};

use super::{arguments, go_error};
use crate::semantics::go_regexp::compile;

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    // `x.matches(p)` and `matches(x, p)`, which `kubernetes_env`'s macros redirect here, for
    // any argument: another type than a string is cel-go's "no such overload".
    env.add_overload("@matches", "matches_go_syntax", vec![DYN_TYPE, DYN_TYPE], matches)?;
    add_member_overload!(env, fn find: (CelString, CelString) -> Result<CelString>,
        id = "string_find_string")?;
    add_member_overload!(env, fn find_all: (CelString, CelString) -> Result<CelList>,
        name = "findAll", id = "string_find_all_string")?;
    add_member_overload!(env, fn find_all_n: (CelString, CelString, CelInt) -> Result<CelList>,
        name = "findAll", id = "string_find_all_string_int")?;
    Ok(())
}

fn matches<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [text, pattern] = arguments(&args)?;
    let (Some(text), Some(pattern)) = (text.downcast_ref::<CelString>(), pattern.downcast_ref::<CelString>()) else {
        return Err(go_error("matches", "no such overload"));
    };
    let regex = compile(pattern.inner()).map_err(|text| go_error("matches", text))?;
    Ok(CowVal::owned(CelBool::from(regex.is_match(text.inner()))))
}

fn find(text: &CelString<'_>, pattern: &CelString<'_>) -> Result<CelString<'static>, ExecutionError> {
    let regex = compile(pattern.inner()).map_err(|e| go_error("find", format!("Illegal regex: {e}")))?;
    let found = regex.find(text.inner()).map_or("", |m| m.as_str());
    Ok(CelString::from(found.to_owned()))
}

fn find_all(text: &CelString<'_>, pattern: &CelString<'_>) -> Result<CelList<'static>, ExecutionError> {
    find_all_n(text, pattern, &CelInt::from(-1))
}

/// Go's `Regexp.FindAllString`: successive non-overlapping matches, at most `n` unless it is
/// negative, an empty match right after the previous match skipped.
fn find_all_n(text: &CelString<'_>, pattern: &CelString<'_>, n: &CelInt) -> Result<CelList<'static>, ExecutionError> {
    let regex = compile(pattern.inner()).map_err(|e| go_error("findAll", format!("Illegal regex: {e}")))?;
    let (text, limit) = (text.inner(), usize::try_from(*n.inner()).unwrap_or(usize::MAX));
    let mut found: Vec<Box<dyn Val>> = Vec::new();
    let (mut position, mut previous_end) = (0, None);
    while found.len() < limit && position <= text.len() {
        let Some(m) = regex.find_at(text, position) else {
            break;
        };
        let accept = !(m.end() == position && previous_end == Some(m.start()));
        position = if m.end() == position {
            position + text[position..].chars().next().map_or(1, char::len_utf8)
        } else {
            m.end()
        };
        previous_end = Some(m.end());
        if accept {
            found.push(Box::new(CelString::from(m.as_str().to_owned())));
        }
    }
    Ok(found.into())
}

#[cfg(test)]
mod tests {
    // Expected values are cel-go v0.16.1's with `library.Regex()`, the pattern not constant
    // (kube-apiserver compiles a constant one with the rule).
    use super::super::tests::{check, strings};

    #[test]
    fn find_and_find_all_return_the_leftmost_first_matches() {
        check("'abc123def456'.find('[0-9]+')", Ok("123".into()));
        check("'abc'.find('x')", Ok("".into()));
        check("'abc123def456'.findAll('[0-9]+')", Ok(strings(&["123", "456"])));
        check("'abc123def456'.findAll('[0-9]+', 1)", Ok(strings(&["123"])));
        check("'abc'.findAll('b*', 0)", Ok(strings(&[])));
        // An empty match right after a match is skipped (regexp.go's allMatches).
        check("'abc'.findAll('b*')", Ok(strings(&["", "b", ""])));
        check("'abc'.findAll('b*', 2)", Ok(strings(&["", "b"])));
        check("'aaa'.findAll('a*?')", Ok(strings(&["", "", "", ""])));
        check("'a©c'.findAll('')", Ok(strings(&["", "", "", ""])));
    }

    #[test]
    fn patterns_mean_what_they_mean_in_go() {
        // Perl classes and word boundaries are ASCII; `{` starting no repetition is literal.
        check("'αβγ'.find('\\\\w+')", Ok("".into()));
        check("'١٢٣'.matches('\\\\d')", Ok(false.into()));
        check("'a b'.matches('a\\\\sb')", Ok(true.into()));
        check("'é'.matches('\\\\bé')", Ok(false.into()));
        check("'a{,5}'.matches('^a{,5}$')", Ok(true.into()));
        check("'a{'.matches('^a{$') && 'a{1'.matches('^a{1$')", Ok(true.into()));
        check(
            "'AB'.matches('(?i)^[a-b]+$') && 'x\\n'.matches('(?s)x.')",
            Ok(true.into()),
        );
        check(
            "'ΣΑ'.matches('^\\\\p{Greek}+$') && 'ab'.matches('^\\\\PN+$')",
            Ok(true.into()),
        );
        check(
            "'a*'.matches('^\\\\Qa*\\\\E$') && '+'.matches('^[\\\\+\\\\x2B]$')",
            Ok(true.into()),
        );
        check("'x'.matches('^*x') && 'xxX'.matches('^x(?i)(?s)+X$')", Ok(true.into()));
        check("'k'.matches('[[:alpha:]][[:^digit:]]?')", Ok(true.into()));
    }

    #[test]
    fn invalid_patterns_fail_with_go_parse_errors() {
        // regexp/syntax/parse.go
        for (pattern, error) in [
            ("[", "missing closing ]: `[`"),
            ("a[b-", "missing closing ]: `[b-`"),
            ("(a", "missing closing ): `(a`"),
            ("a)", "unexpected ): `a)`"),
            ("*a", "missing argument to repetition operator: `*`"),
            ("(+?)", "missing argument to repetition operator: `+?`"),
            ("a**", "invalid nested repetition operator: `**`"),
            ("a{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("a{3,2}", "invalid repeat count: `{3,2}`"),
            ("a\\\\", "trailing backslash at end of expression: ``"),
            ("\\\\q", "invalid escape sequence: `\\q`"),
            ("\\\\1", "invalid escape sequence: `\\1`"),
            ("\\\\xZ1", "invalid escape sequence: `\\xZ1`"),
            ("\\\\C", "invalid escape sequence: `\\C`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
            ("\\\\p{Foo}", "invalid character class range: `\\p{Foo}`"),
            ("(?<n>a)", "invalid or unsupported Perl syntax: `(?<`"),
            ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
            ("(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"),
            ("(?P<n!>a)", "invalid named capture: `(?P<n!>`"),
        ] {
            check(
                &format!("'x'.matches('{pattern}')"),
                Err(&format!("error parsing regexp: {error}")),
            );
            check(
                &format!("'x'.find('{pattern}')"),
                Err(&format!("Illegal regex: error parsing regexp: {error}")),
            );
        }
        check("'x'.matches('(?P<n>x)(?P<n>y)?')", Ok(true.into()));
    }

    #[test]
    fn mistyped_calls_are_no_such_overload() {
        check("'a'.matches(dyn(1))", Err("no such overload"));
        check("dyn(1).matches('a')", Err("no such overload"));
        check("'abc'.find(dyn(1))", Err("no such overload: find(string, int)"));
        check("dyn(1).findAll('a')", Err("no such overload"));
    }
}
