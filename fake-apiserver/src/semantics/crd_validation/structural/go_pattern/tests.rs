//! Go's refusals and acceptances of patterns, as kube-apiserver v1.28.7 answered them.

use super::compile_error;

// Each expectation is kube-apiserver v1.28.7's own words: the patterns were posted in a CRD
// with `?dryRun=All` and the error quoted from its `pattern` field cause.
const REFUSED: &[(&str, &str)] = &[
    ("(", "missing closing ): `(`"),
    ("(?:a", "missing closing ): `(?:a`"),
    (")", "unexpected ): `)`"),
    ("a**", "invalid nested repetition operator: `**`"),
    ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
    ("a*?+", "invalid nested repetition operator: `*?+`"),
    ("a{2}?{3}", "invalid nested repetition operator: `{2}?{3}`"),
    ("é{2}*", "invalid nested repetition operator: `{2}*`"),
    ("*", "missing argument to repetition operator: `*`"),
    ("*?", "missing argument to repetition operator: `*?`"),
    ("a|*", "missing argument to repetition operator: `*`"),
    ("a||*", "missing argument to repetition operator: `*`"),
    ("a{1001}", "invalid repeat count: `{1001}`"),
    ("x{2,1}", "invalid repeat count: `{2,1}`"),
    ("x{1,1001}", "invalid repeat count: `{1,1001}`"),
    ("x{1001,}", "invalid repeat count: `{1001,}`"),
    ("(a{100}){100}", "invalid repeat count: `{100}`"),
    ("(a{2}){501}", "invalid repeat count: `{501}`"),
    ("(a{2}){501}?", "invalid repeat count: `{501}?`"),
    ("(a{2}|b{3}){334}", "invalid repeat count: `{334}`"),
    ("(a{3,}){334}", "invalid repeat count: `{334}`"),
    ("((a{10})*){101}", "invalid repeat count: `{101}`"),
    ("(a{10}b{100}){11}", "invalid repeat count: `{11}`"),
    ("[a", "missing closing ]: `[a`"),
    ("[]", "missing closing ]: `[]`"),
    ("[z-a]", "invalid character class range: `z-a`"),
    ("[z-a\\d]", "invalid character class range: `z-a`"),
    ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
    ("[[:a]b:]", "invalid character class range: `[:a]b:]`"),
    ("[\\p{Foo}]", "invalid character class range: `\\p{Foo}`"),
    ("\\pX", "invalid character class range: `\\pX`"),
    ("\\pé", "invalid character class range: `\\pé`"),
    ("\\p", "invalid character class range: `\\p`"),
    ("\\p{L", "invalid character class range: `\\p{L`"),
    ("\\p{Cn}", "invalid character class range: `\\p{Cn}`"),
    ("\\p{LC}", "invalid character class range: `\\p{LC}`"),
    ("\\p{greek}", "invalid character class range: `\\p{greek}`"),
    ("\\p{Ascii}", "invalid character class range: `\\p{Ascii}`"),
    ("[\\b]", "invalid escape sequence: `\\b`"),
    ("[a-\\d]", "invalid escape sequence: `\\d`"),
    ("\\8", "invalid escape sequence: `\\8`"),
    ("\\1", "invalid escape sequence: `\\1`"),
    ("\\C", "invalid escape sequence: `\\C`"),
    ("\\Z", "invalid escape sequence: `\\Z`"),
    ("\\x", "invalid escape sequence: `\\x`"),
    ("\\xA", "invalid escape sequence: `\\xA`"),
    ("\\xZ", "invalid escape sequence: `\\xZ`"),
    ("\\x{}", "invalid escape sequence: `\\x{}`"),
    ("\\x{41", "invalid escape sequence: `\\x{41`"),
    ("\\x{110000}", "invalid escape sequence: `\\x{110000`"),
    ("\\", "trailing backslash at end of expression: ``"),
    ("(?<n>a)", "invalid or unsupported Perl syntax: `(?<`"),
    ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
    ("(?z)", "invalid or unsupported Perl syntax: `(?z`"),
    ("(?i)(?-)", "invalid or unsupported Perl syntax: `(?-)`"),
    ("(?i-:a)", "invalid or unsupported Perl syntax: `(?i-:`"),
    ("(?P", "invalid or unsupported Perl syntax: `(?P`"),
    ("(?P<n", "invalid named capture: `(?P<n`"),
    ("(?P<>", "invalid named capture: `(?P<>`"),
    ("(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"),
];

const COMPILED: &[&str] = &[
    "\\p{Greek}",
    "\\p{^Greek}",
    "\\pL",
    "\\p{Any}",
    "\\pZ",
    "\\p{Kawi}",
    "\\p{Nag_Mundari}",
    "(?P<n>a)(?P<n>b)",
    "a*(?i)*",
    "(a{2}){500}",
    "(a{0}){1000}",
    "\\12",
    "\\0",
    "()*",
    "^*",
    "x{01}",
    "(?i:a)",
    "(?-i:a)",
    "(?)",
    "\\Qa*\\E*",
    "\\Qa*",
    "x{2}{",
    "a{,3}",
    "(?s).",
    "[[:^alpha:]]",
    "[[:word:]]",
    "(|a)*",
    "(?m)$*",
];

#[test]
fn compile_error_should_word_refusals_as_go_regexp() {
    for (pattern, expected) in REFUSED {
        assert_eq!(
            compile_error(pattern),
            Some(format!("error parsing regexp: {expected}")),
            "pattern {pattern:?}"
        );
    }
}

#[test]
fn compile_error_should_accept_what_go_regexp_compiles() {
    for pattern in COMPILED {
        assert_eq!(compile_error(pattern), None, "pattern {pattern:?}");
    }
}
