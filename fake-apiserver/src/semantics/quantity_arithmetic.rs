//! apimachinery's `resource.Quantity` arithmetic (`Quantity.Add`, `Quantity.Sub`, with
//! `int64Amount.Add` where both sides fit and the exact `inf.Dec` sum where they do not), shared
//! by the CEL quantity library, LimitRanger's and ResourceQuota's sums of resource lists.

use crate::semantics::quantity::Quantity;

/// `Quantity.Add` (or `Sub`): the `int64Amount`s' sum when both are ones and it fits, else the
/// exact `inf.Dec` one. A zero quantity takes the other's format.
fn sum(a: &Quantity, b: &Quantity, subtract: bool) -> Quantity {
    let (am, ascale, afits) = a.amount();
    let (bm, bscale, bfits) = b.amount();
    let format = if am == 0 { b.format() } else { a.format() };
    // Go negates an int64 in place: the most negative one stays as it is.
    let bm = if !subtract {
        bm
    } else if bfits {
        i128::from(i64::try_from(bm).map_or(i64::MIN, i64::wrapping_neg))
    } else {
        -bm
    };
    if afits
        && bfits
        && let Some((mantissa, scale)) = int64_add(am, ascale, bm, bscale)
    {
        return a.with_amount(mantissa, scale, true, format);
    }
    // The exact sum, at the finer of the two scales; past i128 it saturates.
    let scale = ascale.min(bscale);
    let widen = |m: i128, s: i32| m.saturating_mul(10i128.saturating_pow((s - scale).unsigned_abs()));
    let mantissa = widen(am, ascale).saturating_add(widen(bm, bscale));
    a.with_amount(mantissa, scale, false, format)
}

/// `int64Amount.Add`, `None` where it overflows.
fn int64_add(am: i128, ascale: i32, bm: i128, bscale: i32) -> Option<(i128, i32)> {
    let (a, b) = (i64::try_from(am).ok()?, i64::try_from(bm).ok()?);
    let (value, scale) = match () {
        _ if b == 0 => (a, ascale),
        _ if a == 0 => (b, bscale),
        _ if ascale == bscale => (a.checked_add(b)?, ascale),
        _ if ascale > bscale => (scale_up(a, ascale - bscale)?.checked_add(b)?, bscale),
        _ => (a.checked_add(scale_up(b, bscale - ascale)?)?, ascale),
    };
    Some((i128::from(value), scale))
}

/// `positiveScaleInt64`: `value × 10^scale`, `None` where it overflows.
pub(crate) fn scale_up(value: i64, scale: i32) -> Option<i64> {
    (0..scale).try_fold(value, |v, _| v.checked_mul(10))
}

/// `q.Add(other)`.
pub(crate) fn add(q: &Quantity, other: &Quantity) -> Quantity {
    sum(q, other, false)
}

/// `q.Sub(other)`.
pub(crate) fn sub(q: &Quantity, other: &Quantity) -> Quantity {
    sum(q, other, true)
}
