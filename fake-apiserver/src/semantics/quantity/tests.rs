//! `ParseQuantity`, `String()` and the Go prints, against Go's own values.

use super::*;

fn parsed(text: &str) -> Quantity {
    Quantity::parse(text).unwrap()
}

#[test]
fn quantities_should_print_canonically() {
    for (given, canonical) in [
        ("1.5", "1500m"),
        ("110", "110"),
        ("-1", "-1"),
        ("8Gi", "8Gi"),
        ("1536Mi", "1536Mi"),
        ("1e3", "1e3"),
        ("0.5Gi", "512Mi"),
        ("1000m", "1"),
        ("12k", "12k"),
    ] {
        assert_eq!(parsed(given).to_string(), canonical, "{given}");
    }
}

#[test]
fn quantities_should_know_whole_values_and_signs() {
    assert!(!parsed("1.5").is_whole());
    assert!(parsed("2").is_whole());
    assert!(parsed("-1").is_negative());
    assert_eq!(Quantity::parse("1.5x"), Err(QuantityError::Format));
    assert_eq!(Quantity::parse("5Zi"), Err(QuantityError::Format));
    assert_eq!(Quantity::parse("5ki"), Err(QuantityError::Suffix));
}

#[test]
fn validation_should_print_the_go_struct() {
    assert_eq!(
        parsed("1.5").go_syntax(),
        r#"resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}"#
    );
    assert!(parsed("110").go_syntax().contains(r#"s:"110""#));
}
