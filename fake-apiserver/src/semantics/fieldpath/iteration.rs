//! The order in which structured-merge-diff walks a field set (`fieldpath/set.go`:
//! `Set.Iterate`: a node's own members first, then its children, each sorted by
//! `PathElement.Compare` of `fieldpath/element.go`), and the paths that walk hands out.
//!
//! Before SMD v4.3.0 (kube-apiserver 1.28) `merge.ConflictsFromManagers` kept each path it was
//! handed without copying it, while the walk built the next path by `append`ing to the same
//! prefix: a path whose array still had room was overwritten by its later siblings
//! (kubernetes/kubernetes#119141). That is emulated here with Go's growth of slice capacity
//! (0, 1, 2, 4, 8… for a 32-byte `PathElement`), so a 1.28 conflict reads as 1.28 reports it.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::semantics::fieldpath::FieldPath;

/// A node of the set as SMD holds it: which child elements are members, and the subtrees.
#[derive(Default)]
struct Node {
    members: Vec<String>,
    children: Vec<(String, Node)>,
}

impl Node {
    fn insert(&mut self, path: &[String]) {
        match path {
            [] => {}
            [last] => {
                if !self.members.contains(last) {
                    self.members.push(last.clone());
                }
            }
            [first, rest @ ..] => {
                let index = match self.children.iter().position(|(pe, _)| pe == first) {
                    Some(index) => index,
                    None => {
                        self.children.push((first.clone(), Node::default()));
                        self.children.len() - 1
                    }
                };
                self.children[index].1.insert(rest);
            }
        }
    }

    fn sort(&mut self) {
        self.members.sort_by(|a, b| compare_elements(a, b));
        self.children.sort_by(|a, b| compare_elements(&a.0, &b.0));
        self.children.iter_mut().for_each(|(_, child)| child.sort());
    }
}

/// A Go slice of path elements: an array of the arena, and a length.
#[derive(Clone, Copy)]
struct Slice {
    array: Option<usize>,
    len: usize,
}

/// The walk: the arrays Go's `append` allocated, and the paths handed out, each as it was
/// then (a copy) and as the slice that a caller keeping it reads later.
struct Walk {
    arrays: Vec<Vec<String>>,
    handed_out: Vec<(FieldPath, Slice)>,
}

impl Walk {
    /// Go's `append(prefix, element)`: in place while the array has room, else into a new
    /// array of twice the capacity.
    fn append(&mut self, prefix: Slice, element: &str) -> Slice {
        let capacity = prefix.array.map_or(0, |a| self.arrays[a].len());
        if prefix.len < capacity {
            let array = prefix.array.expect("an array with room");
            self.arrays[array][prefix.len] = element.to_owned();
            return Slice {
                array: Some(array),
                len: prefix.len + 1,
            };
        }
        let mut grown = vec![String::new(); (capacity * 2).max(prefix.len + 1)];
        if let Some(array) = prefix.array {
            grown[..prefix.len].clone_from_slice(&self.arrays[array][..prefix.len]);
        }
        grown[prefix.len] = element.to_owned();
        self.arrays.push(grown);
        Slice {
            array: Some(self.arrays.len() - 1),
            len: prefix.len + 1,
        }
    }

    fn hand_out(&mut self, path: Slice) {
        let copy = self.read(path);
        self.handed_out.push((copy, path));
    }

    fn read(&self, path: Slice) -> FieldPath {
        path.array
            .map_or_else(Vec::new, |a| self.arrays[a][..path.len].to_vec())
    }

    /// `Set.iteratePrefix`: the members, then each child's subtree.
    fn iterate(&mut self, node: &Node, prefix: Slice) {
        for member in &node.members {
            let path = self.append(prefix, member);
            self.hand_out(path);
        }
        for (element, child) in &node.children {
            let child_prefix = self.append(prefix, element);
            self.iterate(child, child_prefix);
        }
    }
}

/// The paths of `set` in SMD's walk order, each with the path a caller that kept it reads
/// afterwards: overwritten as SMD before v4.3.0 left it when `aliased`, else the path itself.
pub(crate) fn walked_paths(set: &BTreeSet<FieldPath>, aliased: bool) -> Vec<(FieldPath, FieldPath)> {
    let mut root = Node::default();
    for path in set {
        root.insert(path);
    }
    root.sort();
    let mut walk = Walk {
        arrays: Vec::new(),
        handed_out: Vec::new(),
    };
    walk.iterate(&root, Slice { array: None, len: 0 });
    walk.handed_out
        .iter()
        .map(|(path, slice)| {
            let shown = if aliased { walk.read(*slice) } else { path.clone() };
            (path.clone(), shown)
        })
        .collect()
}

/// `PathElement.Compare`: field names, then keys, then values, then indexes.
fn compare_elements(a: &str, b: &str) -> Ordering {
    let rank = |s: &str| match s.get(..2) {
        Some("f:") => 0,
        Some("k:") => 1,
        Some("v:") => 2,
        Some("i:") => 3,
        _ => 4,
    };
    let (ra, rb) = (rank(a), rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    let (sa, sb) = (&a[2.min(a.len())..], &b[2.min(b.len())..]);
    match ra {
        1 => compare_keys(sa, sb),
        2 => compare_values(&parse(sa), &parse(sb)),
        3 => sa.parse::<i64>().unwrap_or(0).cmp(&sb.parse::<i64>().unwrap_or(0)),
        _ => sa.cmp(sb),
    }
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// `FieldList.Compare`: field by field (sorted by name), names then values; shorter first.
fn compare_keys(a: &str, b: &str) -> Ordering {
    let fields = |text: &str| -> Vec<(String, Value)> {
        let map: Map<String, Value> = serde_json::from_str(text).unwrap_or_default();
        let mut fields: Vec<(String, Value)> = map.into_iter().collect();
        fields.sort_by(|x, y| x.0.cmp(&y.0));
        fields
    };
    let (fa, fb) = (fields(a), fields(b));
    for ((na, va), (nb, vb)) in fa.iter().zip(&fb) {
        let order = na.cmp(nb).then_with(|| compare_values(va, vb));
        if order != Ordering::Equal {
            return order;
        }
    }
    fa.len().cmp(&fb.len())
}

/// `value.Compare`: numbers (ints and floats numerically), then strings, then booleans, then
/// anything else by its JSON text, null last.
fn compare_values(a: &Value, b: &Value) -> Ordering {
    let rank = |v: &Value| match v {
        Value::Number(_) => 0,
        Value::String(_) => 1,
        Value::Bool(_) => 2,
        Value::Array(_) => 3,
        Value::Object(_) => 4,
        Value::Null => 5,
    };
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i.cmp(&j),
            _ => x
                .as_f64()
                .unwrap_or_default()
                .total_cmp(&y.as_f64().unwrap_or_default()),
        },
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)).then_with(|| a.to_string().cmp(&b.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(segments: &[&str]) -> FieldPath {
        segments.iter().map(|s| (*s).to_owned()).collect()
    }

    fn conflict_set() -> BTreeSet<FieldPath> {
        let container = ["f:spec", "f:template", "f:spec", "f:containers", "k:{\"name\":\"api\"}"];
        let image = [&container[..], &["f:image"]].concat();
        let value = [&container[..], &["f:env", "k:{\"name\":\"MODE\"}", "f:value"]].concat();
        [path(&image), path(&value)].into_iter().collect()
    }

    #[test]
    fn members_should_come_before_the_children_of_their_node() {
        let walked = walked_paths(&conflict_set(), false);
        assert_eq!(walked[0].1.last().map(String::as_str), Some("f:image"));
        assert_eq!(walked[1].1.last().map(String::as_str), Some("f:value"));
        assert!(walked.iter().all(|(path, shown)| path == shown));
    }

    #[test]
    fn a_kept_path_should_be_overwritten_by_its_later_sibling_before_smd_4_3() {
        // The fifth element starts an array of capacity 8: the image member at index 5 is
        // overwritten by the env child, as kube-apiserver 1.28 reports it.
        let walked = walked_paths(&conflict_set(), true);
        assert_eq!(walked[0].0.last().map(String::as_str), Some("f:image"));
        assert_eq!(walked[0].1.last().map(String::as_str), Some("f:env"));
        assert_eq!(walked[0].1.len(), 6);
        assert_eq!(walked[1].1.last().map(String::as_str), Some("f:value"));
    }

    #[test]
    fn keys_should_compare_their_values_as_numbers() {
        assert_eq!(compare_elements("k:{\"port\":9}", "k:{\"port\":10}"), Ordering::Less);
        assert_eq!(compare_elements("f:z", "k:{\"a\":1}"), Ordering::Less);
    }
}
