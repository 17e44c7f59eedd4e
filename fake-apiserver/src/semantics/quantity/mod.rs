//! Kubernetes resource quantities (`1.5`, `500m`, `8Gi`, `1e3`) as apimachinery's
//! `resource.ParseQuantity` reads them (`staging/src/k8s.io/apimachinery/pkg/api/resource/
//! quantity.go`, `amount.go`): the sign, the value as a decimal mantissa and power of ten, the
//! format the suffix implies, the canonical string `String()` writes, and the `%#v` print that
//! validation messages show of a `resource.Quantity`.

use std::fmt;

mod go_print;
#[cfg(test)]
mod tests;

/// The format of a quantity, from its suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// `e3`, `E-2`.
    DecimalExponent,
    /// `Ki`, `Mi`, … (powers of 1024).
    BinarySI,
    /// `n`, `u`, `m`, none, `k`, `M`, … (powers of 1000).
    DecimalSI,
}

impl Format {
    fn go_name(self) -> &'static str {
        match self {
            Format::DecimalExponent => "DecimalExponent",
            Format::BinarySI => "BinarySI",
            Format::DecimalSI => "DecimalSI",
        }
    }
}

/// Why a string is not a quantity, in apimachinery's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum QuantityError {
    /// `ErrFormatWrong`.
    #[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
    Format,
    /// `ErrNumeric`.
    #[error("unable to parse numeric part of quantity")]
    Numeric,
    /// `ErrSuffix`.
    #[error("unable to parse quantity's suffix")]
    Suffix,
}

/// A parsed quantity: `mantissa × 10^scale`, exactly (Go keeps an `int64Amount` when it fits and
/// an `inf.Dec` otherwise; `fits` says which).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Quantity {
    mantissa: i128,
    scale: i32,
    format: Format,
    /// Whether Go holds it as an `int64Amount` (the fast path) rather than an `inf.Dec`.
    fits: bool,
    /// The string Go holds once `String()` ran, as every validation message's value has: the
    /// input when it was already canonical.
    cached: String,
    /// The string `ParseQuantity` itself keeps (by its own test, `keeps_string`), as a value
    /// fresh from a decode holds it.
    parsed: String,
}

impl Quantity {
    /// `resource.ParseQuantity`.
    pub(crate) fn parse(text: &str) -> Result<Self, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::Format);
        }
        if text == "0" {
            return Ok(Self::exact(0, 0, Format::DecimalSI, text));
        }
        let (positive, num, denom, suffix) = split(text)?;
        let (base, exponent, format) = interpret(suffix).ok_or(QuantityError::Suffix)?;
        let digits: String = format!("{num}{denom}");
        let unsigned: i128 = digits.parse().map_err(|_| QuantityError::Numeric)?;
        let sign = if positive { 1 } else { -1 };
        let fraction = i32::try_from(denom.len()).map_err(|_| QuantityError::Numeric)?;
        // Go's fast path: few enough digits for an int64 and no finer than nanos.
        let length = i32::try_from(num.len() + denom.len()).unwrap_or(i32::MAX);
        let (mantissa, scale, fast) = match (base, format) {
            (2, _) if exponent >= 0 && denom.is_empty() => {
                let precision = 15 - length - (exponent as f32 * 3.0 / 10.0) as i32 - 1;
                let value = unsigned.checked_shl(exponent as u32).unwrap_or(i128::MAX);
                (value, 0, precision >= 0 && i64::try_from(value).is_ok())
            }
            (2, _) => {
                // A fractional binary quantity goes through `inf.Dec`, rounded up to nanos.
                let value = unsigned * (1i128 << exponent.clamp(0, 60));
                (value, -fraction, false)
            }
            _ => {
                let precision = 18 - length;
                let scale = exponent - fraction;
                (
                    unsigned,
                    scale,
                    precision >= 0 && scale >= -9 && i64::try_from(unsigned).is_ok(),
                )
            }
        };
        let mut quantity = Self::exact(sign * mantissa, scale, format, "");
        quantity.fits = fast;
        if !fast {
            quantity.round_up_to_nanos();
            if format == Format::BinarySI && quantity.mantissa.abs() < quantity.pow10(-quantity.scale) {
                quantity.format = Format::DecimalSI;
            }
        }
        if fast && quantity.to_string() == text {
            quantity.cached = text.to_owned();
        }
        if fast && keeps_string(format, exponent, scale, &digits) {
            quantity.parsed = text.to_owned();
        }
        Ok(quantity)
    }

    fn exact(mantissa: i128, scale: i32, format: Format, cached: &str) -> Self {
        Self {
            mantissa,
            scale,
            format,
            fits: true,
            cached: cached.to_owned(),
            parsed: cached.to_owned(),
        }
    }

    fn pow10(&self, exponent: i32) -> i128 {
        10i128.checked_pow(exponent.max(0) as u32).unwrap_or(i128::MAX)
    }

    /// `MarshalJSON`: the string `ParseQuantity` kept, or the canonical form.
    pub(crate) fn to_json_string(&self) -> String {
        match self.parsed.is_empty() {
            true => self.to_string(),
            false => self.parsed.clone(),
        }
    }

    /// `inf.RoundUp` to nine decimals, away from zero, as Go's slow path rounds.
    fn round_up_to_nanos(&mut self) {
        self.round_up(-9);
    }

    /// `Quantity.RoundUp(scale)`: no finer than `10^scale`, rounded away from zero (both of Go's
    /// amounts round so); the cached string goes when the value changes scale.
    pub(crate) fn round_up(&mut self, scale: i32) {
        if self.scale >= scale {
            return;
        }
        let divisor = self.pow10(scale - self.scale);
        let (quotient, remainder) = (self.mantissa / divisor, self.mantissa % divisor);
        self.mantissa = quotient + remainder.signum();
        self.scale = scale;
        self.cached.clear();
        self.parsed.clear();
    }

    /// The quantity after Go's `String()`, which keeps the canonical form it printed as the
    /// cached string (a message that prints a value before `%#v` shows it shows that too).
    pub(crate) fn stringified(&self) -> Self {
        let mut printed = self.clone();
        if printed.cached.is_empty() {
            printed.cached = printed.to_string();
        }
        printed
    }

    /// `NewQuantity(value, DecimalExponent)`: an integer, as the CEL library adds one.
    pub(crate) fn from_int(value: i64) -> Self {
        Self::exact(i128::from(value), 0, Format::DecimalExponent, "")
    }

    /// `NewQuantity(value, DecimalSI)`: a count, as the quota evaluators charge one.
    pub(crate) fn decimal(value: i64) -> Self {
        Self::exact(i128::from(value), 0, Format::DecimalSI, "")
    }

    /// Whether the value is zero (`IsZero`).
    pub(crate) fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// The exact value `mantissa × 10^scale`, and whether Go holds it in an `int64Amount`
    /// (else an `inf.Dec`), for the CEL library's arithmetic.
    pub(crate) fn amount(&self) -> (i128, i32, bool) {
        (self.mantissa, self.scale, self.fits)
    }

    /// This quantity's format with another exact value; `fits`: held in an `int64Amount`.
    pub(crate) fn with_amount(&self, mantissa: i128, scale: i32, fits: bool, format: Format) -> Self {
        Self {
            mantissa,
            scale,
            format,
            fits,
            cached: String::new(),
            parsed: String::new(),
        }
    }

    /// The format the suffix gave.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// Compares two quantities by value (`Cmp`).
    pub(crate) fn cmp_value(&self, other: &Self) -> std::cmp::Ordering {
        let scale = self.scale.min(other.scale);
        let widen = |q: &Self| q.mantissa.saturating_mul(q.pow10(q.scale - scale));
        widen(self).cmp(&widen(other))
    }

    /// `Value()`: the whole value, rounded away from zero (`negativeScaleInt64`).
    pub(crate) fn value(&self) -> i64 {
        let whole = if self.scale >= 0 {
            self.mantissa.saturating_mul(self.pow10(self.scale))
        } else {
            let divisor = self.pow10(-self.scale);
            self.mantissa / divisor + (self.mantissa % divisor).signum()
        };
        i64::try_from(whole).unwrap_or(if whole < 0 { i64::MIN } else { i64::MAX })
    }

    /// `MilliValue()`: the value in thousandths, rounded away from zero.
    pub(crate) fn milli_value(&self) -> i64 {
        let scale = self.scale + 3;
        let milli = if scale >= 0 {
            self.mantissa.saturating_mul(self.pow10(scale))
        } else {
            let divisor = self.pow10(-scale);
            self.mantissa / divisor + (self.mantissa % divisor).signum()
        };
        i64::try_from(milli).unwrap_or(if milli < 0 { i64::MIN } else { i64::MAX })
    }

    /// Whether the quantity is below zero.
    pub(crate) fn is_negative(&self) -> bool {
        self.mantissa < 0
    }

    /// Whether `MilliValue()` is a whole number of units (integer resources must be).
    pub(crate) fn is_whole(&self) -> bool {
        if self.scale >= 0 {
            return true;
        }
        // MilliValue rounds up what is finer than a milli.
        let milli_scale = self.scale + 3;
        let milli = if milli_scale >= 0 {
            self.mantissa * self.pow10(milli_scale)
        } else {
            let divisor = self.pow10(-milli_scale);
            self.mantissa / divisor + (self.mantissa % divisor).signum()
        };
        milli % 1000 == 0
    }
}

/// Whether `ParseQuantity`'s fast path keeps the input as the cached string ("if the number is
/// in canonical form, reuse the string"), by Go's own test: a binary amount whose digits are not
/// a multiple of eight, a decimal one on a multiple of three whose digits neither end in `000`
/// nor start with `0`.
fn keeps_string(format: Format, exponent: i32, scale: i32, digits: &str) -> bool {
    match format {
        Format::BinarySI => {
            let value: i128 = digits.parse().unwrap_or(0);
            exponent % 10 == 0 && value & 0x07 != 0
        }
        _ => scale % 3 == 0 && !digits.ends_with("000") && !digits.starts_with('0'),
    }
}

/// `String()`: the canonical form (`CanonicalizeBytes`), decimal with the largest SI suffix
/// that keeps it whole, or binary when it is a whole multiple of 1024 asked for in binary.
impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mantissa == 0 {
            return f.write_str("0");
        }
        let mut format = self.format;
        if format == Format::BinarySI {
            let whole = self.scale >= 0 || self.mantissa % self.pow10(-self.scale) == 0;
            let small = self.mantissa.abs() < 1024 * self.pow10(-self.scale.min(0));
            if small || !whole {
                format = Format::DecimalSI;
            }
        }
        if format == Format::BinarySI {
            let mut value = if self.scale >= 0 {
                self.mantissa * self.pow10(self.scale)
            } else {
                self.mantissa / self.pow10(-self.scale)
            };
            let mut exponent = 0;
            while value % 1024 == 0 && exponent < 6 {
                value /= 1024;
                exponent += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][exponent];
            return write!(f, "{value}{suffix}");
        }
        let (mut value, mut exponent) = (self.mantissa, self.scale);
        while value % 10 == 0 {
            value /= 10;
            exponent += 1;
        }
        match exponent.rem_euclid(3) {
            1 => {
                value *= 10;
                exponent -= 1;
            }
            2 => {
                value *= 100;
                exponent -= 2;
            }
            _ => {}
        }
        if format == Format::DecimalExponent {
            return if exponent == 0 {
                write!(f, "{value}")
            } else {
                write!(f, "{value}e{exponent}")
            };
        }
        let suffix = match exponent {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => return write!(f, "{value}e{exponent}"),
        };
        write!(f, "{value}{suffix}")
    }
}

/// `parseQuantityString`: the sign, the numerator (leading zeros dropped), the fraction digits
/// and the suffix.
fn split(text: &str) -> Result<(bool, &str, &str, &str), QuantityError> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let positive = match bytes.first() {
        Some(b'-') => {
            pos = 1;
            false
        }
        Some(b'+') => {
            pos = 1;
            true
        }
        _ => true,
    };
    while pos < bytes.len() && bytes[pos] == b'0' {
        pos += 1;
    }
    if pos == bytes.len() {
        return Ok((positive, "0", "", ""));
    }
    let digits = |from: usize| from + bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let num_end = digits(pos);
    let num = if num_end == pos { "0" } else { &text[pos..num_end] };
    let mut end = num_end;
    let mut denom = "";
    if bytes.get(end) == Some(&b'.') {
        let denom_end = digits(end + 1);
        denom = &text[end + 1..denom_end];
        end = denom_end;
    }
    let suffix = &text[end..];
    let letters = suffix.bytes().take_while(|b| b"eEinumkKMGTP".contains(b)).count();
    let mut rest = &suffix.as_bytes()[letters..];
    if let Some(b'-' | b'+') = rest.first() {
        rest = &rest[1..];
    }
    if !rest.iter().all(u8::is_ascii_digit) {
        return Err(QuantityError::Format);
    }
    Ok((positive, num, denom, suffix))
}

/// `quantitySuffixer.interpret`: the base, the exponent and the format of a suffix.
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let decimal = |exponent| Some((10, exponent, Format::DecimalSI));
    let binary = |exponent| Some((2, exponent, Format::BinarySI));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        _ => {
            let exponent = suffix.strip_prefix(['e', 'E'])?.parse().ok()?;
            Some((10, exponent, Format::DecimalExponent))
        }
    }
}
