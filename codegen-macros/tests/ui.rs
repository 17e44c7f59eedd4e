//! Every diagnostic of the derive and of `clientset!`, pinned: each case fails to compile with exactly the message
//! in its `.stderr`, by category.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    for category in [
        "unknown-tag",
        "conflict",
        "malformed",
        "unsupported",
        "missing",
        "clientset",
        "apply",
    ] {
        cases.compile_fail(format!("tests/ui/{category}/*.rs"));
    }
    cases.pass("tests/ui/pass/*.rs");
}
