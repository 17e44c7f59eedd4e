//! Every diagnostic of the derive, pinned: each case fails to compile with exactly the message
//! in its `.stderr`, by category.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    for category in ["unknown-tag", "conflict", "malformed", "unsupported", "missing"] {
        cases.compile_fail(format!("tests/ui/{category}/*.rs"));
    }
}
