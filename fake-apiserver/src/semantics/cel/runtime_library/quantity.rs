//! Kubernetes' quantity library (`apiserver/pkg/cel/library/quantity.go`) and its `kubernetes.Quantity` value (`apiserver/pkg/cel/quantity.go`), with apimachinery's `resource.Quantity` arithmetic (`Add`, `Sub`, `AsInt64`, `AsApproximateFloat64`, `Sign`, `Cmp`).

use std::any::Any;
use std::cmp::Ordering;

use cel::common::types::{CelBool, CelDouble, CelInt, CelString, Type};
use cel::common::value::{StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError, add_member_overload, add_overload};

use super::go_error;
use crate::semantics::quantity::Quantity as Amount;
use crate::semantics::quantity_arithmetic::{self as arithmetic, scale_up};

static QUANTITY_TYPE: Type = Type::new_unspecified_type("kubernetes.Quantity");

/// A `resource.Quantity` as a CEL value.
#[derive(Clone, Debug)]
pub(super) struct Quantity(Amount);

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    add_overload!(env, fn quantity: (CelString) -> Result<Quantity>, id = "string_to_quantity")?;
    add_overload!(env, fn is_quantity: (CelString) -> CelBool, id = "is_quantity_string")?;
    add_overload!(env, fn sign: (Quantity) -> CelInt, id = "quantity_sign")?;
    add_member_overload!(env, fn is_greater_than: (Quantity, Quantity) -> CelBool, id = "quantity_is_greater_than")?;
    add_member_overload!(env, fn is_less_than: (Quantity, Quantity) -> CelBool, id = "quantity_is_less_than")?;
    add_member_overload!(env, fn compare_to: (Quantity, Quantity) -> CelInt, id = "quantity_compare_to")?;
    add_member_overload!(env, fn as_approximate_float: (Quantity) -> CelDouble, id = "quantity_get_float")?;
    add_member_overload!(env, fn as_integer: (Quantity) -> Result<CelInt>, id = "quantity_get_int")?;
    add_member_overload!(env, fn is_integer: (Quantity) -> CelBool, id = "quantity_is_integer")?;
    add_member_overload!(env, fn add: (Quantity, Quantity) -> Quantity, id = "quantity_add")?;
    add_member_overload!(env, fn add_int: (Quantity, CelInt) -> Quantity, name = "add", id = "quantity_add_int")?;
    add_member_overload!(env, fn sub: (Quantity, Quantity) -> Quantity, id = "quantity_sub")?;
    add_member_overload!(env, fn sub_int: (Quantity, CelInt) -> Quantity, name = "sub", id = "quantity_sub_int")?;
    Ok(())
}

impl Val for Quantity {
    fn get_type(&self) -> &Type {
        &QUANTITY_TYPE
    }

    fn cel_type() -> &'static Type {
        &QUANTITY_TYPE
    }

    /// `Quantity.Equal`: the same value, whatever its format.
    fn equals(&self, other: &dyn Val) -> bool {
        other
            .downcast_ref::<Quantity>()
            .is_some_and(|other| self.0.cmp_value(&other.0) == Ordering::Equal)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Quantity {}

fn quantity(s: &CelString<'_>) -> Result<Quantity, ExecutionError> {
    Amount::parse(s)
        .map(Quantity)
        .map_err(|e| go_error("quantity", e.to_string()))
}

fn is_quantity(s: &CelString<'_>) -> CelBool {
    CelBool::from(Amount::parse(s).is_ok())
}

fn sign(q: &Quantity) -> CelInt {
    let (mantissa, _, _) = q.0.amount();
    CelInt::from(mantissa.signum() as i64)
}

fn ordering(q: &Quantity, other: &Quantity) -> Ordering {
    q.0.cmp_value(&other.0)
}

fn is_greater_than(q: &Quantity, other: &Quantity) -> CelBool {
    CelBool::from(ordering(q, other) == Ordering::Greater)
}

fn is_less_than(q: &Quantity, other: &Quantity) -> CelBool {
    CelBool::from(ordering(q, other) == Ordering::Less)
}

fn compare_to(q: &Quantity, other: &Quantity) -> CelInt {
    CelInt::from(ordering(q, other) as i64)
}

/// `AsApproximateFloat64`: the mantissa as a float times Go's `math.Pow10` of the exponent.
fn as_approximate_float(q: &Quantity) -> CelDouble {
    let (mantissa, scale, _) = q.0.amount();
    let base = mantissa as f64;
    CelDouble::from(if scale == 0 { base } else { base * go_pow10(scale) })
}

/// `AsInt64`: only an `int64Amount` of no fraction converts, even one whose fraction is zero
/// (`1000m` does not).
fn int64(q: &Amount) -> Option<i64> {
    let (mantissa, scale, fits) = q.amount();
    let value = i64::try_from(mantissa).ok().filter(|_| fits)?;
    match scale {
        0 => Some(value),
        s if s < 0 => None,
        s => scale_up(value, s),
    }
}

fn as_integer(q: &Quantity) -> Result<CelInt, ExecutionError> {
    int64(&q.0)
        .map(CelInt::from)
        .ok_or_else(|| go_error("asInteger", "cannot convert value to integer"))
}

fn is_integer(q: &Quantity) -> CelBool {
    CelBool::from(int64(&q.0).is_some())
}

fn add(q: &Quantity, other: &Quantity) -> Quantity {
    Quantity(arithmetic::add(&q.0, &other.0))
}

fn add_int(q: &Quantity, other: &CelInt) -> Quantity {
    Quantity(arithmetic::add(&q.0, &Amount::from_int(*other.inner())))
}

fn sub(q: &Quantity, other: &Quantity) -> Quantity {
    Quantity(arithmetic::sub(&q.0, &other.0))
}

fn sub_int(q: &Quantity, other: &CelInt) -> Quantity {
    Quantity(arithmetic::sub(&q.0, &Amount::from_int(*other.inner())))
}

/// Go's `math.Pow10`: the nearest doubles of `1e0`…`1e31` times those of `1e0`, `1e32`, …,
/// `1e288` (divided, for a negative exponent), infinity or zero beyond.
fn go_pow10(n: i32) -> f64 {
    let exact = |e: i32| format!("1e{e}").parse::<f64>().unwrap_or(f64::NAN);
    match n {
        0..=308 => exact(n / 32 * 32) * exact(n % 32),
        -323..=-1 => exact(-(-n / 32 * 32)) / exact(-n % 32),
        n if n > 0 => f64::INFINITY,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    // Expected values are kube-apiserver 1.31's `library.Quantity()` on apimachinery's Quantity.
    use super::super::tests::check;

    #[test]
    fn quantities_should_compare_by_value() {
        check("quantity('1Gi') == quantity('1024Mi')", Ok(true.into()));
        check("quantity('1.5').isGreaterThan(quantity('1500m'))", Ok(false.into()));
        check("quantity('1k').compareTo(quantity('999'))", Ok(1.into()));
        check("quantity('1').isLessThan(quantity('2'))", Ok(true.into()));
        check("sign(quantity('-0.5'))", Ok((-1).into()));
        check("isQuantity('1.5x') || isQuantity('')", Ok(false.into()));
        check(
            "quantity('1.5x')",
            Err("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        );
    }

    #[test]
    fn only_whole_int64_amounts_should_be_integers() {
        check("quantity('1Ki').asInteger()", Ok(1024.into()));
        check("quantity('1k').asInteger()", Ok(1000.into()));
        // `1000m` is held as 1000 × 10^-3, which `AsInt64` does not reduce.
        check("quantity('1000m').isInteger()", Ok(false.into()));
        check("quantity('1.5').asInteger()", Err("cannot convert value to integer"));
        check("quantity('9Ei').isInteger()", Ok(false.into()));
    }

    #[test]
    fn arithmetic_should_keep_int64_amounts_until_they_overflow() {
        check(
            "quantity('1').add(quantity('500m')).asApproximateFloat()",
            Ok(1.5.into()),
        );
        check("quantity('1k').add(1).asInteger()", Ok(1001.into()));
        check("quantity('1k').sub(quantity('1k')).isInteger()", Ok(true.into()));
        check("quantity('1').sub(2).asInteger()", Ok((-1).into()));
        check("quantity('9223372036854775807').add(1).isInteger()", Ok(false.into()));
        check(
            "quantity('9223372036854775807').add(1) == quantity('9223372036854775808')",
            Ok(true.into()),
        );
    }

    #[test]
    fn pow10_should_be_go_s() {
        assert_eq!(super::go_pow10(3), 1000.0);
        assert_eq!(super::go_pow10(-9), 1e-9);
        assert_eq!(super::go_pow10(400), f64::INFINITY);
        assert_eq!(super::go_pow10(-400), 0.0);
    }
}
