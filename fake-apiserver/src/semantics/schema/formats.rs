//! The string formats kube-apiserver checks in CRD schemas: kube-openapi's `strfmt.Default`
//! registry (`k8s.io/kube-openapi/pkg/validation/strfmt`) as narrowed by apiextensions'
//! `StripUnsupportedFormatsPostProcess` (`apiextensions-apiserver/pkg/apiserver/validation/formats.go`).
//!
//! The longer ports live in submodules: `hostname` (Unicode classes), `net` (IP, CIDR, MAC),
//! `uri` (`net/url`), `mail` (`net/mail`) and `time` (dates and durations).

mod hostname;
mod mail;
mod net;
pub(crate) mod time;
mod uri;

use std::sync::LazyLock;

use regex::Regex;

/// apiextensions' `supportedFormats`. They are exactly the names `strfmt.Default` registers, so
/// every format that survives stripping has a validator below.
const SUPPORTED: [&str; 24] = [
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
];

/// go-openapi's `DefaultNameNormalizer`, which both the stripping and the registry lookup apply:
/// every `-` removed, nothing else, so the lookup stays case-sensitive (`Date` is stripped).
fn normalize(format: &str) -> String {
    format.replace('-', "")
}

/// Whether kube-apiserver checks `format` at all: formats outside the supported set are stripped
/// from the schema when the CRD is loaded (after go-openapi's normalization, which drops `-`).
pub(crate) fn is_checked(format: &str) -> bool {
    SUPPORTED.contains(&normalize(format).as_str())
}

/// Whether `value` is valid for the checked `format` (`None` when the format is not checked).
pub(crate) fn validates(format: &str, value: &str) -> Option<bool> {
    let valid = match normalize(format).as_str() {
        "bsonobjectid" => bsonobjectid(value),
        "uri" => uri::uri(value),
        "email" => mail::email(value),
        "hostname" => hostname::hostname(value),
        "ipv4" => net::ipv4(value),
        "ipv6" => net::ipv6(value),
        "cidr" => net::cidr(value),
        "mac" => net::mac(value),
        "uuid" => uuid(value),
        "uuid3" => uuid3(value),
        "uuid4" => uuid4(value),
        "uuid5" => uuid5(value),
        "isbn" => isbn(value),
        "isbn10" => isbn10(value),
        "isbn13" => isbn13(value),
        "creditcard" => creditcard(value),
        "ssn" => ssn(value),
        "hexcolor" => hexcolor(value),
        "rgbcolor" => rgbcolor(value),
        "byte" => byte(value),
        "password" => password(value),
        "date" => time::date(value),
        "datetime" => time::datetime(value),
        "duration" => time::duration(value),
        _ => return None,
    };
    Some(valid)
}

// Go's `\d` and `\s` are ASCII-only (`\s` is `[\t\n\f\r ]`, without `\v`), so the patterns below
// spell them out; `(?i)` is written as explicit `a-fA-F` ranges.
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
        .expect("valid regex")
});
static UUID3: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?3[0-9a-fA-F]{3}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
        .expect("valid regex")
});
static UUID4: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?4[0-9a-fA-F]{3}-?[89abAB][0-9a-fA-F]{3}-?[0-9a-fA-F]{12}$")
        .expect("valid regex")
});
static UUID5: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?5[0-9a-fA-F]{3}-?[89abAB][0-9a-fA-F]{3}-?[0-9a-fA-F]{12}$")
        .expect("valid regex")
});
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        "^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}",
        "|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$"
    ))
    .expect("valid regex")
});
static SSN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$").expect("valid regex"));
static HEX_COLOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$").expect("valid regex"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    let channel = "(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
    let space = r"[\t\n\x0C\r ]*";
    Regex::new(&format!(
        r"^rgb\({space}{channel}{space},{space}{channel}{space},{space}{channel}{space}\)$"
    ))
    .expect("valid regex")
});
static BASE64: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$").expect("valid regex")
});

/// Ports strfmt's `IsBSONObjectID`: `hex.DecodeString` yields exactly 12 bytes.
fn bsonobjectid(value: &str) -> bool {
    value.len() == 24 && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Ports strfmt's `IsUUID`: `UUIDPattern`.
fn uuid(value: &str) -> bool {
    UUID.is_match(value)
}

/// Ports strfmt's `IsUUID3`: `UUID3Pattern`.
fn uuid3(value: &str) -> bool {
    UUID3.is_match(value)
}

/// Ports strfmt's `IsUUID4`: `UUID4Pattern`.
fn uuid4(value: &str) -> bool {
    UUID4.is_match(value)
}

/// Ports strfmt's `IsUUID5`: `UUID5Pattern`.
fn uuid5(value: &str) -> bool {
    UUID5.is_match(value)
}

/// Ports the `isbn` validator registered in `default.go`: `IsISBN10 || IsISBN13`.
fn isbn(value: &str) -> bool {
    isbn10(value) || isbn13(value)
}

/// `whiteSpacesAndMinus.ReplaceAllString(str, "")`: the text without Go's `\s` and `-`.
fn without_spaces_and_minus(value: &str) -> Vec<u8> {
    value
        .bytes()
        .filter(|&b| !matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | b' ' | b'-'))
        .collect()
}

/// Ports govalidator's `IsISBN10`: nine digits and a digit or `X`, weighted sum divisible by 11.
fn isbn10(value: &str) -> bool {
    let sanitized = without_spaces_and_minus(value);
    let [digits @ .., check] = sanitized.as_slice() else {
        return false;
    };
    if digits.len() != 9 || !digits.iter().all(u8::is_ascii_digit) || (!check.is_ascii_digit() && *check != b'X') {
        return false;
    }
    let weighted: u32 = digits
        .iter()
        .zip(1..)
        .map(|(&d, weight)| weight * u32::from(d - b'0'))
        .sum();
    let check = if *check == b'X' { 10 } else { u32::from(check - b'0') };
    (weighted + 10 * check).is_multiple_of(11)
}

/// Ports govalidator's `IsISBN13`: thirteen digits whose last is the 1-3 weighted check digit.
fn isbn13(value: &str) -> bool {
    let sanitized = without_spaces_and_minus(value);
    if sanitized.len() != 13 || !sanitized.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let weighted: u32 = sanitized[..12]
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let weight = if i.is_multiple_of(2) { 1 } else { 3 };
            weight * u32::from(d - b'0')
        })
        .sum();
    u32::from(sanitized[12] - b'0') == (10 - weighted % 10) % 10
}

/// Ports govalidator's `IsCreditCard`: the text's digits match a card pattern and pass Luhn.
fn creditcard(value: &str) -> bool {
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(d - b'0');
            match (!i.is_multiple_of(2), d * 2) {
                (false, _) => d,
                (true, doubled) if doubled >= 10 => doubled % 10 + 1,
                (true, doubled) => doubled,
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Ports govalidator's `IsSSN`: exactly 11 bytes matching `^\d{3}[- ]?\d{2}[- ]?\d{4}$`.
fn ssn(value: &str) -> bool {
    value.len() == 11 && SSN.is_match(value)
}

/// Ports govalidator's `IsHexcolor`: `^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`.
fn hexcolor(value: &str) -> bool {
    HEX_COLOR.is_match(value)
}

/// Ports govalidator's `IsRGBcolor`: `rgb(r,g,b)` with channels 0 to 255 without leading zeros.
fn rgbcolor(value: &str) -> bool {
    RGB_COLOR.is_match(value)
}

/// Ports govalidator's `IsBase64`: a pattern, not a decode; the empty string fails it.
fn byte(value: &str) -> bool {
    BASE64.is_match(value)
}

/// Ports the `password` validator registered in `default.go`: any string.
fn password(_value: &str) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_checked_should_accept_supported_formats() {
        for format in SUPPORTED {
            assert!(is_checked(format), "{format}");
            assert!(validates(format, "").is_some(), "{format} has a validator");
        }
    }

    #[test]
    fn is_checked_should_drop_dashes_before_the_lookup() {
        assert!(is_checked("date-time"));
        assert!(is_checked("b-s-o-n-object-id"));
        assert!(is_checked("-uuid-"));
        assert_eq!(validates("date-time", "2024-02-29T10:00:00Z"), Some(true));
    }

    #[test]
    fn is_checked_should_strip_unknown_and_differently_cased_formats() {
        for format in [
            "",
            "-",
            "int32",
            "int-or-string",
            "quantity",
            "Date",
            "UUID",
            "date_time",
            "ip",
            "url",
        ] {
            assert!(!is_checked(format), "{format}");
            assert_eq!(validates(format, "anything"), None, "{format}");
        }
    }

    #[test]
    fn bsonobjectid_should_need_24_hex_digits() {
        assert!(bsonobjectid("507f1f77bcf86cd799439011"));
        assert!(bsonobjectid("507F1F77BCF86CD799439011"));
        assert!(!bsonobjectid("507f1f77bcf86cd79943901"));
        assert!(!bsonobjectid("507f1f77bcf86cd79943901g"));
    }

    #[test]
    fn uuid_should_match_any_version_with_optional_dashes() {
        assert!(uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(uuid("123E4567E89B12D3A456426614174000"));
        assert!(!uuid("123e4567-e89b-12d3-a456-42661417400"));
        assert!(!uuid("g23e4567-e89b-12d3-a456-426614174000"));
    }

    #[test]
    fn uuid3_should_need_version_3() {
        assert!(uuid3("a3bb189e-8bf9-3888-9912-ace4e6543002"));
        assert!(uuid3("A3BB189E8BF938889912ACE4E6543002"));
        assert!(!uuid3("a3bb189e-8bf9-4888-9912-ace4e6543002"));
        assert!(!uuid3("a3bb189e-8bf9-3888-9912-ace4e654300"));
    }

    #[test]
    fn uuid4_should_need_version_4_and_variant() {
        assert!(uuid4("f47ac10b-58cc-4372-a567-0e02b2c3d479"));
        assert!(uuid4("F47AC10B-58CC-4372-B567-0E02B2C3D479"));
        assert!(!uuid4("f47ac10b-58cc-4372-c567-0e02b2c3d479"));
        assert!(!uuid4("f47ac10b-58cc-3372-a567-0e02b2c3d479"));
    }

    #[test]
    fn uuid5_should_need_version_5_and_variant() {
        assert!(uuid5("886313e1-3b8a-5372-9b90-0c9aee199e5d"));
        assert!(uuid5("886313E13B8A53729B900C9AEE199E5D"));
        assert!(!uuid5("886313e1-3b8a-5372-7b90-0c9aee199e5d"));
        assert!(!uuid5("886313e1-3b8a-4372-9b90-0c9aee199e5d"));
    }

    #[test]
    fn isbn_should_accept_either_length() {
        assert!(isbn("0321751043"));
        assert!(isbn("978-0321751041"));
        assert!(!isbn("0321751044"));
        assert!(!isbn("978-0321751042"));
    }

    #[test]
    fn isbn10_should_check_the_weighted_sum() {
        assert!(isbn10("0-321-75104-3"));
        assert!(isbn10("080442957X"));
        assert!(!isbn10("080442957x"));
        assert!(!isbn10("0321751042"));
        assert!(!isbn10("978-0321751041"));
    }

    #[test]
    fn isbn13_should_check_the_check_digit() {
        assert!(isbn13("978-0321751041"));
        assert!(isbn13("978 0 321 75104 1"));
        assert!(!isbn13("9780321751042"));
        assert!(!isbn13("0321751043"));
    }

    #[test]
    fn creditcard_should_drop_non_digits_and_check_luhn() {
        assert!(creditcard("4111111111111111"));
        assert!(creditcard("4111-1111-1111-1111"));
        assert!(creditcard("5500 0000 0000 0004"));
        assert!(!creditcard("4111111111111112"));
        // Passes Luhn, but no card number starts with 1.
        assert!(!creditcard("1234567812345670"));
        assert!(!creditcard(""));
    }

    #[test]
    fn ssn_should_need_eleven_bytes() {
        assert!(ssn("123-45-6789"));
        assert!(ssn("123 45-6789"));
        // The pattern allows dropping separators, the length check does not.
        assert!(!ssn("123456789"));
        assert!(!ssn("123-45-678a"));
    }

    #[test]
    fn hexcolor_should_take_three_or_six_digits() {
        assert!(hexcolor("#fff"));
        assert!(hexcolor("A0B1C2"));
        assert!(!hexcolor("#ffff"));
        assert!(!hexcolor("#ggg"));
    }

    #[test]
    fn rgbcolor_should_take_channels_up_to_255() {
        assert!(rgbcolor("rgb(255,255,255)"));
        assert!(rgbcolor("rgb( 0 ,\t10 , 200 )"));
        assert!(!rgbcolor("rgb(256,0,0)"));
        assert!(!rgbcolor("rgb(01,0,0)"));
        // Go's `\s` has no vertical tab.
        assert!(!rgbcolor("rgb(\x0B0,0,0)"));
    }

    #[test]
    fn byte_should_follow_go_pattern() {
        assert!(byte("aGVsbG8="));
        assert!(byte("YWJj"));
        assert!(!byte(""));
        assert!(!byte("aGVsbG8"));
        assert!(!byte("aGVsbG8-"));
    }

    #[test]
    fn password_should_accept_anything() {
        assert!(password(""));
        assert!(password("hunter2"));
    }
}
