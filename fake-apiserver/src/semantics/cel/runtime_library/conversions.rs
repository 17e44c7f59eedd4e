//! cel-go's conversions of scalars (`common/types/{string,double,int,uint,bool,bytes,null}.go`'s `ConvertToType`: Go's `strconv` parsing, `%g` for doubles), where the crate's standard ones differ.

use cel::common::functions::Function;
use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelDuration, CelInt, CelString, CelTimestamp, CelUInt, DYN_TYPE, Kind,
};
use cel::common::value::CowVal;
use cel::{DeclarationError, Env, ExecutionError};

use super::time::{format_duration, format_timestamp, nanos};
use super::{arguments, conversion_error, go_error};

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    let conversions: [(&str, Function); 5] = [
        ("int", to_int),
        ("uint", to_uint),
        ("double", to_double),
        ("bool", to_bool),
        ("string", to_string),
    ];
    // The calls `kubernetes_env`'s macros redirect here, for any argument.
    for (name, function) in conversions {
        env.add_overload(&format!("@{name}"), &format!("dyn_to_{name}"), vec![DYN_TYPE], function)?;
    }
    Ok(())
}

fn to_int<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [value] = arguments(&args)?;
    let overflow = || go_error("int", "integer overflow");
    let int = if let Some(i) = value.downcast_ref::<CelInt>() {
        *i.inner()
    } else if let Some(u) = value.downcast_ref::<CelUInt>() {
        i64::try_from(*u.inner()).map_err(|_| overflow())?
    } else if let Some(d) = value.downcast_ref::<CelDouble>() {
        // doubleToInt64Checked: the bounds are exclusive, and reject NaN.
        let d = *d.inner();
        if !(d > i64::MIN as f64 && d < i64::MAX as f64) {
            return Err(overflow());
        }
        d as i64
    } else if let Some(s) = value.downcast_ref::<CelString>() {
        // strconv.ParseInt(s, 10, 64) takes what Rust's does: an optional sign, ASCII digits.
        s.inner().parse().map_err(|_| conversion_error("int", value, "int"))?
    } else if let Some(t) = value.downcast_ref::<CelTimestamp>() {
        t.inner().timestamp()
    } else if let Some(d) = value.downcast_ref::<CelDuration>() {
        nanos(d)
    } else {
        return Err(conversion_error("int", value, "int"));
    };
    Ok(CowVal::owned(CelInt::from(int)))
}

fn to_uint<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [value] = arguments(&args)?;
    let overflow = || go_error("uint", "unsigned integer overflow");
    let uint = if let Some(u) = value.downcast_ref::<CelUInt>() {
        *u.inner()
    } else if let Some(i) = value.downcast_ref::<CelInt>() {
        u64::try_from(*i.inner()).map_err(|_| overflow())?
    } else if let Some(d) = value.downcast_ref::<CelDouble>() {
        let d = *d.inner();
        if !(d >= 0.0 && d < u64::MAX as f64) {
            return Err(overflow());
        }
        d as u64
    } else if let Some(s) = value.downcast_ref::<CelString>() {
        // strconv.ParseUint takes no sign, where Rust's takes a `+`.
        let s = s.inner();
        s.strip_prefix('+')
            .map_or_else(|| s.parse().ok(), |_| None)
            .ok_or_else(|| conversion_error("uint", value, "uint"))?
    } else {
        return Err(conversion_error("uint", value, "uint"));
    };
    Ok(CowVal::owned(CelUInt::from(uint)))
}

fn to_double<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [value] = arguments(&args)?;
    let double = if let Some(d) = value.downcast_ref::<CelDouble>() {
        *d.inner()
    } else if let Some(i) = value.downcast_ref::<CelInt>() {
        *i.inner() as f64
    } else if let Some(u) = value.downcast_ref::<CelUInt>() {
        *u.inner() as f64
    } else if let Some(s) = value.downcast_ref::<CelString>() {
        parse_float(s.inner()).ok_or_else(|| conversion_error("double", value, "double"))?
    } else {
        return Err(conversion_error("double", value, "double"));
    };
    Ok(CowVal::owned(CelDouble::from(double)))
}

/// `strconv.ParseFloat(s, 64)` for decimal numbers: Rust's syntax, plus underscores between
/// digits; no sign before `NaN`; out of range is an error rather than an infinity.
fn parse_float(s: &str) -> Option<f64> {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    if unsigned.eq_ignore_ascii_case("nan") {
        return (unsigned.len() == s.len()).then_some(f64::NAN);
    }
    if unsigned.eq_ignore_ascii_case("inf") || unsigned.eq_ignore_ascii_case("infinity") {
        return s.parse().ok();
    }
    let bytes = s.as_bytes();
    let digit_at = |i: Option<usize>| i.and_then(|i| bytes.get(i)).is_some_and(u8::is_ascii_digit);
    let underscores_between_digits = (0..bytes.len())
        .filter(|&i| bytes[i] == b'_')
        .all(|i| digit_at(i.checked_sub(1)) && digit_at(Some(i + 1)));
    if !underscores_between_digits {
        return None;
    }
    let value: f64 = s.replace('_', "").parse().ok()?;
    value.is_finite().then_some(value)
}

fn to_bool<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [value] = arguments(&args)?;
    let boolean = if let Some(b) = value.downcast_ref::<CelBool>() {
        *b.inner()
    } else if let Some(s) = value.downcast_ref::<CelString>() {
        // strconv.ParseBool
        match s.inner() {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => true,
            "0" | "f" | "F" | "false" | "FALSE" | "False" => false,
            _ => return Err(conversion_error("bool", value, "bool")),
        }
    } else {
        return Err(conversion_error("bool", value, "bool"));
    };
    Ok(CowVal::owned(CelBool::from(boolean)))
}

fn to_string<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [value] = arguments(&args)?;
    let string = if value.downcast_ref::<CelString>().is_some() {
        return Ok(args.remove(0));
    } else if let Some(b) = value.downcast_ref::<CelBool>() {
        b.inner().to_string()
    } else if let Some(i) = value.downcast_ref::<CelInt>() {
        i.inner().to_string()
    } else if let Some(u) = value.downcast_ref::<CelUInt>() {
        u.inner().to_string()
    } else if let Some(d) = value.downcast_ref::<CelDouble>() {
        format_double(*d.inner())
    } else if let Some(b) = value.downcast_ref::<CelBytes>() {
        std::str::from_utf8(b.inner())
            .map_err(|_| go_error("string", "invalid UTF-8 in bytes, cannot convert to string"))?
            .to_owned()
    } else if let Some(t) = value.downcast_ref::<CelTimestamp>() {
        format_timestamp(t)
    } else if value.get_type().kind() == Kind::NullType {
        "null".to_owned()
    } else if let Some(d) = value.downcast_ref::<CelDuration>() {
        format_duration(d)
    } else if let Some(address) = super::ip::display(value) {
        address
    } else {
        return Err(conversion_error("string", value, "string"));
    };
    Ok(CowVal::owned(CelString::from(string)))
}

/// A double as Go's `%g` prints it (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest
/// digits, in exponent form when the exponent is below -4 or at least 6 (`1e+06`).
pub(super) fn format_double(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..6).contains(&exponent) {
        return value.to_string();
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, string};

    #[test]
    fn numbers_convert_with_strconv_and_checked_ranges() {
        // common/types/{string,double,uint}.go
        check("int('+5') + int('-05')", Ok(0.into()));
        check("int('1_000')", Err("type conversion error from 'string' to 'int'"));
        check("int(' 5')", Err("type conversion error from 'string' to 'int'"));
        check(
            "int('99999999999999999999')",
            Err("type conversion error from 'string' to 'int'"),
        );
        check("int(1e19)", Err("integer overflow"));
        check("int(18446744073709551615u)", Err("integer overflow"));
        check("int(dyn([]))", Err("type conversion error from 'list' to 'int'"));
        check("int(duration('1h'))", Ok(3_600_000_000_000i64.into()));
        check("int(timestamp('1969-12-31T23:59:59.5Z'))", Ok((-1).into()));
        check("uint('+5')", Err("type conversion error from 'string' to 'uint'"));
        check("uint(-1)", Err("unsigned integer overflow"));
        check("uint(-0.5)", Err("unsigned integer overflow"));
        check("double('1_000.5')", Ok(1000.5.into()));
        check("double('_1')", Err("type conversion error from 'string' to 'double'"));
        check(
            "double('1e400')",
            Err("type conversion error from 'string' to 'double'"),
        );
        check("double('-Infinity')", Ok(f64::NEG_INFINITY.into()));
        check("double('+nan')", Err("type conversion error from 'string' to 'double'"));
        check("bool('True') && !bool('0')", Ok(true.into()));
        check("bool('tRue')", Err("type conversion error from 'string' to 'bool'"));
        check(
            "string(b'\\xff')",
            Err("invalid UTF-8 in bytes, cannot convert to string"),
        );
        check("string(dyn({}))", Err("type conversion error from 'map' to 'string'"));
        check("string(dyn(null))", Ok("null".into()));
    }

    #[test]
    fn doubles_print_as_go_percent_g() {
        for (source, expected) in [
            ("1.5", "1.5"),
            ("123456.0", "123456"),
            ("1e6", "1e+06"),
            ("123456789.123", "1.23456789123e+08"),
            ("0.0001", "0.0001"),
            ("0.000012345", "1.2345e-05"),
            ("-0.0", "-0"),
            ("1e100", "1e+100"),
            ("5e-324", "5e-324"),
            ("1.0 / 0.0", "+Inf"),
            ("double('NaN')", "NaN"),
        ] {
            string(source, expected);
        }
    }
}
