//! The runtime library's tests: evaluation in [`kubernetes_env`] as a rule runs, checked against what cel-go v0.16.1 gives in kube-apiserver 1.28's environment; the environment-wide ones here, each library's with its functions.

use std::sync::{Arc, OnceLock};

use cel::{Env, Value};

use super::{go_error_text, kubernetes_env};

/// Evaluates `source` in [`kubernetes_env`], reporting failures as cel-go words them.
pub(super) fn evaluate(source: &str) -> Result<Value, String> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    let env = ENV.get_or_init(|| Arc::new(kubernetes_env()));
    let program = env.compile(source).map_err(|e| format!("parse error: {e}"))?;
    program
        .execute(&cel::Context::with_env(Arc::clone(env)))
        .map_err(|error| go_error_text(&error))
}

/// Asserts that `source` evaluates to `expected`, what cel-go v0.16.1 gives for it.
pub(super) fn check(source: &str, expected: Result<Value, &str>) {
    assert_eq!(evaluate(source), expected.map_err(str::to_owned), "{source}");
}

/// Asserts that `string(source)` is `expected`.
pub(super) fn string(source: &str, expected: &str) {
    check(&format!("string({source})"), Ok(expected.into()));
}

/// A list of strings, as a library function returns one.
pub(super) fn strings(parts: &[&str]) -> Value {
    parts.to_vec().into()
}

#[test]
fn the_standard_macros_expand_along_with_the_redirections() {
    check("[1, 2].all(x, x > 0) && has({'a': 1}.a)", Ok(true.into()));
    check("[1, 2].map(x, x * 2).filter(x, x > 2)", Ok(vec![4].into()));
}

#[test]
fn arithmetic_errors_read_as_cel_go_words_them() {
    // common/types/err.go
    check("100 / (1 - 1) > 1", Err("division by zero"));
    check("100 % (1 - 1) > 1", Err("modulus by zero"));
    check("1u / (1u - 1u) > 1u", Err("division by zero"));
    // common/types/overflow.go
    check("9223372036854775807 + 1 > 0", Err("integer overflow"));
    check("-(-9223372036854775807 - 1) > 0", Err("integer overflow"));
    check("3 * 3074457345618258603 > 0", Err("integer overflow"));
    check("0u - 1u > 0u", Err("unsigned integer overflow"));
    check(
        "duration('9223372036s') + duration('1s') > duration('0s')",
        Err("integer overflow"),
    );
    check(
        "timestamp('9999-12-31T23:59:59Z') + duration('1s') > timestamp('2000-01-01T00:00:00Z')",
        Err("timestamp overflow"),
    );
    check("1.0 / 0.0", Ok(f64::INFINITY.into()));
}

#[test]
fn lookups_fail_as_attributes_go_resolves_them() {
    // interpreter/attributes.go, common/types/list.go's IndexOrError
    check("{'a': 1}['max'] > 0", Err("no such key: max"));
    check("{'a': {'b': 1}}.a.c > 0", Err("no such key: c"));
    check("{1: 2}[3] > 0", Err("no such key: 3"));
    check("[1][5] > 0", Err("index out of bounds: 5"));
    check("[1][-1] > 0", Err("index out of bounds: -1"));
    check("[1][dyn(1u)] > 0", Err("index out of bounds: 1"));
    check("[1][dyn(0.5)] > 0", Err("unsupported index value 0.5 in list"));
    check("[1][dyn('a')] > 0", Err("unsupported index type 'string' in list"));
    check("{1: 2}[dyn(1.0)]", Ok(2.into()));
}

#[test]
fn mistyped_operands_are_no_such_overload() {
    // interpreter/interpretable.go: the left operand's trait, else its receiver, else the
    // operator; cel-go's Compare of a NaN.
    check("dyn(1) + dyn('a')", Err("no such overload"));
    check("dyn({}) + dyn(1)", Err("no such overload: _+_"));
    check("dyn(true) * dyn(1)", Err("no such overload: _*_"));
    check("dyn(b'a') - dyn(1)", Err("no such overload: _-_"));
    check("dyn([]) % dyn(1)", Err("no such overload: _%_"));
    check("dyn('a') < dyn(1)", Err("no such overload"));
    check("dyn({}) < dyn(1)", Err("no such overload: _<_"));
    check("dyn(null) < dyn(1)", Err("no such overload: _<_"));
    check("double('NaN') < 1.0", Err("NaN values cannot be ordered"));
    check("1 < double('NaN')", Err("NaN values cannot be ordered"));
    check("-dyn(1u)", Err("no such overload: -_"));
    check("-dyn(true)", Err("no such overload"));
    check("-dyn('a')", Err("no such overload"));
    check("!dyn(1)", Err("no such overload"));
    check("dyn(1) && true", Err("no such overload"));
    check("1 in dyn(1)", Err("no such overload"));
    check("size(dyn(1))", Err("no such overload: size"));
    check("dyn(1).contains('a')", Err("no such overload: contains"));
    check("dyn(1).startsWith('a')", Err("no such overload: startsWith"));
    check("'a'.endsWith(dyn(1))", Err("no such overload"));
    check("dyn(1).all(i, true)", Err("got 'types.Int', expected iterable type"));
    check(
        "dyn(null).exists(i, true)",
        Err("got 'types.Null', expected iterable type"),
    );
}

#[test]
fn repeated_map_keys_keep_the_last_entry() {
    check("{'a': 1, 'a': 2}['a']", Ok(2.into()));
}
