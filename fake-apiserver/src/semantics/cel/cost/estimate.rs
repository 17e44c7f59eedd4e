//! cel-go v0.16.1's cost and size ranges and their overflow-free arithmetic
//! (`checker/cost.go`: `CostEstimate`, `SizeEstimate`, `CallEstimate`), with the cost
//! constants of `common/cost.go`.

/// `common.SelectAndIdentCost`: reading a variable or selecting a field.
pub(super) const SELECT_AND_IDENT: CostEstimate = CostEstimate::exactly(1);
/// `common.ConstCost`: a literal is free.
pub(super) const CONST: CostEstimate = CostEstimate::exactly(0);
/// `common.ListCreateBaseCost`.
pub(super) const LIST_CREATE: CostEstimate = CostEstimate::exactly(10);
/// `common.MapCreateBaseCost`.
pub(super) const MAP_CREATE: CostEstimate = CostEstimate::exactly(30);
/// `common.StructCreateBaseCost`.
pub(super) const STRUCT_CREATE: CostEstimate = CostEstimate::exactly(40);
/// `common.StringTraversalCostFactor`: the cost of walking one byte (or character) of a string.
pub(super) const STRING_TRAVERSAL: f64 = 0.1;
/// `common.RegexStringLengthCostFactor`: the cost of one character of a regular expression.
pub(super) const REGEX_LENGTH: f64 = 0.25;

/// cel-go's `checker.CostEstimate`: the least and the most an expression may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CostEstimate {
    pub(crate) min: u64,
    pub(crate) max: u64,
}

/// cel-go's `checker.SizeEstimate`: the least and the most a string's, bytes', list's or map's
/// `size()` may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SizeEstimate {
    pub(super) min: u64,
    pub(super) max: u64,
}

/// `checker.CallEstimate`: a call's cost and, for a string, bytes, list or map result, its size.
#[derive(Clone, Copy, Debug)]
pub(super) struct CallEstimate {
    pub(super) cost: CostEstimate,
    pub(super) result_size: Option<SizeEstimate>,
}

impl CallEstimate {
    pub(super) fn cost(cost: CostEstimate) -> CallEstimate {
        CallEstimate {
            cost,
            result_size: None,
        }
    }
}

impl CostEstimate {
    pub(super) const ZERO: CostEstimate = CostEstimate::exactly(0);

    pub(super) const fn exactly(cost: u64) -> CostEstimate {
        CostEstimate { min: cost, max: cost }
    }

    /// `Add`, saturating at `u64::MAX` as Go's `addUint64NoOverflow`.
    pub(super) fn add(self, other: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_add(other.min),
            max: self.max.saturating_add(other.max),
        }
    }

    /// `Multiply`, saturating as Go's `multiplyUint64NoOverflow`.
    pub(super) fn multiply(self, other: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_mul(other.min),
            max: self.max.saturating_mul(other.max),
        }
    }

    /// `Union`: the range covering both.
    pub(super) fn union(self, other: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }
}

impl SizeEstimate {
    pub(super) const ZERO: SizeEstimate = SizeEstimate::exactly(0);
    /// What cel-go assumes of a size nothing bounds.
    pub(super) const UNBOUNDED: SizeEstimate = SizeEstimate { min: 0, max: u64::MAX };

    pub(super) const fn exactly(size: u64) -> SizeEstimate {
        SizeEstimate { min: size, max: size }
    }

    pub(super) fn add(self, other: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.saturating_add(other.min),
            max: self.max.saturating_add(other.max),
        }
    }

    pub(super) fn multiply(self, other: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.saturating_mul(other.min),
            max: self.max.saturating_mul(other.max),
        }
    }

    /// `MultiplyByCost`: doing something of `cost` once per element.
    pub(super) fn multiply_by_cost(self, cost: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_mul(cost.min),
            max: self.max.saturating_mul(cost.max),
        }
    }

    /// `MultiplyByCostFactor`: the size times a fractional cost per element, rounded up.
    pub(super) fn multiply_by_cost_factor(self, factor: f64) -> CostEstimate {
        CostEstimate {
            min: multiply_by_cost_factor(self.min, factor),
            max: multiply_by_cost_factor(self.max, factor),
        }
    }

    pub(super) fn union(self, other: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }
}

/// Go's `multiplyByCostFactor`: `uint64(math.Ceil(float64(x) * factor))`, or `MaxUint64` when the
/// product is past what the float comparison deems representable.
fn multiply_by_cost_factor(x: u64, factor: f64) -> u64 {
    let x = x as f64;
    // `math.MaxUint64 / factor` is computed in float64, where MaxUint64 is 2^64.
    if x > 0.0 && factor > 0.0 && x > u64::MAX as f64 / factor {
        return u64::MAX;
    }
    go_f64_to_u64((x * factor).ceil())
}

/// Go's `uint64(f)` for a non-negative `f` as compiled for amd64, where kube-apiserver runs:
/// values from 2^63 are converted as `int64(f - 2^63) | 1<<63`, and the int64 conversion of
/// an out-of-range value gives `1<<63`, so exactly 2^64 (a product that passed the check
/// above by equality) becomes 2^63 rather than saturating.
pub(super) fn go_f64_to_u64(f: f64) -> u64 {
    const CUTOFF: f64 = 9_223_372_036_854_775_808.0;
    const HIGH_BIT: u64 = 1 << 63;
    if f.is_nan() || f <= 0.0 {
        // Not reachable from sizes and positive factors; zero is Go's answer for a negative.
        return 0;
    }
    if f < CUTOFF {
        return f as u64;
    }
    let low = f - CUTOFF;
    let low = if low < CUTOFF { low as u64 } else { HIGH_BIT };
    low | HIGH_BIT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_should_saturate_and_round_up_like_go() {
        let big = CostEstimate {
            min: 1,
            max: u64::MAX - 1,
        };
        assert_eq!(
            big.add(CostEstimate::exactly(5)),
            CostEstimate { min: 6, max: u64::MAX }
        );
        assert_eq!(big.multiply(CostEstimate::exactly(2)).max, u64::MAX);
        // 81 * 0.1 is 8.100000000000001 in float64: rounded up to 9.
        assert_eq!(
            SizeEstimate { min: 1, max: 81 }.multiply_by_cost_factor(STRING_TRAVERSAL),
            CostEstimate { min: 1, max: 9 }
        );
        assert_eq!(
            SizeEstimate::exactly(6).multiply_by_cost_factor(REGEX_LENGTH),
            CostEstimate::exactly(2)
        );
        assert_eq!(
            SizeEstimate::UNBOUNDED.multiply_by_cost_factor(STRING_TRAVERSAL).max,
            1_844_674_407_370_955_264
        );
    }

    #[test]
    fn an_unbounded_size_times_one_should_convert_as_amd64_go_does() {
        assert_eq!(SizeEstimate::UNBOUNDED.multiply_by_cost_factor(1.0).max, 1 << 63);
        assert_eq!(go_f64_to_u64(12_345.0), 12_345);
        assert_eq!(go_f64_to_u64(1.5 * 9_223_372_036_854_775_808.0), (1 << 63) | (1 << 62));
    }
}
