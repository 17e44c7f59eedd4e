//! The field paths cel-go's estimator gives expressions (`checker/cost.go`: `exprPath`,
//! `addPath`), kept as Go keeps them, and Kubernetes' `sizeEstimator.EstimateSize`
//! (`apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go`) that reads them.
//!
//! Go builds each path with `append(parentPath, element)`, so paths share backing arrays: two
//! children appended to one parent with spare capacity write the same slot, and the one costed
//! last wins, also for a sibling whose path was taken earlier and is read later. The estimate
//! depends on that, so the paths here are slices of shared arrays that grow as Go's do.

use super::estimate::SizeEstimate;
use crate::semantics::cel::decl_type::{DeclType, Shape};

/// A Go `[]string`: `len` elements of the shared array `array`, which may grow to `cap`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Path {
    array: usize,
    len: usize,
    cap: usize,
}

/// The backing arrays of every path of one estimate.
#[derive(Default)]
pub(super) struct Arrays(Vec<Vec<String>>);

impl Arrays {
    /// `append(base, element)`, `base` being `nil` when `None`.
    pub(super) fn append(&mut self, base: Option<Path>, element: &str) -> Path {
        if let Some(base) = base.filter(|b| b.len < b.cap)
            && let Some(array) = self.0.get_mut(base.array)
        {
            // Room left: the element goes into the shared array, over whatever a sibling put there.
            match array.get_mut(base.len) {
                Some(slot) => *slot = element.to_string(),
                None => array.push(element.to_string()),
            }
            return Path {
                array: base.array,
                len: base.len + 1,
                cap: base.cap,
            };
        }
        let (mut elements, len, cap) = match base {
            Some(base) => (self.view(base).to_vec(), base.len, base.cap),
            None => (Vec::new(), 0, 0),
        };
        elements.push(element.to_string());
        self.0.push(elements);
        Path {
            array: self.0.len() - 1,
            len: len + 1,
            cap: grown_capacity(cap, len + 1),
        }
    }

    /// The path's elements as they are now.
    pub(super) fn view(&self, path: Path) -> &[String] {
        self.0
            .get(path.array)
            .and_then(|a| a.get(..path.len))
            .unwrap_or_default()
    }
}

/// Go's `growslice` for appending one 16-byte string header: doubling below 256 elements
/// (every doubled size is a malloc size class, so no rounding), then growing by a quarter plus
/// 192 (the size-class rounding there is not modelled; no schema is that deep).
fn grown_capacity(old_cap: usize, needed: usize) -> usize {
    if needed > old_cap.saturating_mul(2) {
        return needed;
    }
    if old_cap < 256 {
        return old_cap * 2;
    }
    let mut cap = old_cap;
    while cap < needed {
        cap += (cap + 3 * 256) / 4;
    }
    cap
}

/// Kubernetes' `sizeEstimator.EstimateSize`: the size bound of the schema node the path leads to
/// from `root` (its first element, the variable, is skipped), or `None` where it leads nowhere.
/// A map's keys are `apiservercel.StringType`, whose `MaxElements` is 0.
pub(super) fn estimate_size(root: &DeclType, path: &[String]) -> Option<SizeEstimate> {
    let (_variable, rest) = path.split_first()?;
    let mut node = root;
    let mut key = false;
    for element in rest {
        if key {
            // `StringType` has no fields, element or key type.
            return None;
        }
        match element.as_str() {
            "@items" | "@values" => node = node.elem()?,
            "@keys" => match node.shape {
                Shape::Map(_) => key = true,
                _ => return None,
            },
            field => node = node.field(field)?,
        }
    }
    let max = if key {
        0
    } else {
        u64::try_from(node.max_elements).unwrap_or(0)
    };
    Some(SizeEstimate { min: 0, max })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(path: &[String]) -> Vec<&str> {
        path.iter().map(String::as_str).collect()
    }

    #[test]
    fn appends_should_share_arrays_as_go_slices_do() {
        let mut arrays = Arrays::default();
        let mut range = arrays.append(None, "self");
        for field in ["a", "b", "c", "d"] {
            range = arrays.append(Some(range), field);
        }
        // Length 5, capacity 8: each occurrence of the iteration variable shares the array.
        let first = arrays.append(Some(range), "@items");
        let second = arrays.append(Some(range), "@items");
        let name = arrays.append(Some(first), "name");
        let image = arrays.append(Some(second), "image");
        assert_eq!(
            strings(arrays.view(name)),
            ["self", "a", "b", "c", "d", "@items", "image"]
        );
        assert_eq!(
            strings(arrays.view(image)),
            ["self", "a", "b", "c", "d", "@items", "image"]
        );
        // Length 2, capacity 2: appending copies.
        let variable = arrays.append(None, "self");
        let short = arrays.append(Some(variable), "x");
        let (left, right) = (arrays.append(Some(short), "l"), arrays.append(Some(short), "r"));
        assert_eq!(strings(arrays.view(left)), ["self", "x", "l"]);
        assert_eq!(strings(arrays.view(right)), ["self", "x", "r"]);
    }

    #[test]
    fn capacities_should_double_from_one() {
        assert_eq!([1, 2, 4, 8].map(|n| grown_capacity(n, n + 1)), [2, 4, 8, 16]);
        assert_eq!(grown_capacity(0, 1), 1);
        assert_eq!(grown_capacity(256, 257), 512);
    }
}
