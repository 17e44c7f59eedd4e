//! go-spew's `%#v` of a Go value (`github.com/davecgh/go-spew/spew/format.go`, `formatState.format`
//! and `formatPtr`, with the `ConfigState{SortKeys, DisableMethods, SpewKeys}` of client-go's
//! `hashutil.DeepHashObject`), printed from the JSON of the object and the Go type table of
//! `go_types/` — what kube-controller-manager hashes a pod template with.
//!
//! The value printed is the one kube-controller-manager holds: decoded from the protobuf its
//! informers read, where an empty list or map arrives as `nil`, a pointer is set exactly when its
//! field was present, and a `resource.Quantity` is parsed again from its canonical string.

use serde_json::Value;

use crate::semantics::go_types::{GoType, GoTypes};
use crate::semantics::quantity::Quantity;

/// spew's `%#v` of `value` as a value of the table's root type.
pub(crate) fn sprint(types: &GoTypes, value: &Value) -> String {
    sprint_as(types, types.root(), value)
}

/// spew's `%#v` of `value` as a value of the table's type `id`.
pub(crate) fn sprint_as(types: &GoTypes, id: &str, value: &Value) -> String {
    let mut printer = Printer {
        types,
        out: String::new(),
    };
    printer.format(id, Some(value), false);
    printer.out
}

/// `hashutil.DeepHashObject` into an MD5 hasher, as the endpoints and EndpointSlice
/// controllers sort ports and subsets: the digest of spew's print of `value` as type `id`.
pub(crate) fn md5_of(types: &GoTypes, id: &str, value: &Value) -> [u8; 16] {
    use md5::Digest;
    md5::Md5::digest(sprint_as(types, id, value).as_bytes()).into()
}

struct Printer<'a> {
    types: &'a GoTypes,
    out: String,
}

impl Printer<'_> {
    fn ty(&self, id: &str) -> &GoType {
        self.types.get(id)
    }

    /// `formatState.format` of the value of type `id` (`None`: the zero value); `ignore_type`
    /// is spew's `ignoreNextType` (elements of slices and maps, a pointer's target).
    fn format(&mut self, id: &str, value: Option<&Value>, ignore_type: bool) {
        let value = value.filter(|v| !v.is_null());
        let ty = self.ty(id);
        if ty.kind == "ptr" {
            return self.format_pointer(id, value, ignore_type);
        }
        if !ignore_type {
            let name = ty.name.clone();
            self.out.push('(');
            self.out.push_str(&name);
            self.out.push(')');
        }
        let ty = self.ty(id);
        let kind = ty.kind.clone();
        match kind.as_str() {
            "struct" if id == "intstr.IntOrString" => self.int_or_string(value),
            "struct" => self.format_struct(id, value),
            "slice" => self.format_slice(id, value),
            "map" => self.format_map(id, value),
            "string" => self.out.push_str(value.and_then(Value::as_str).unwrap_or("")),
            "bool" => self.out.push_str(if value.and_then(Value::as_bool) == Some(true) {
                "true"
            } else {
                "false"
            }),
            "quantity" => self.quantity(value),
            // A template's creation time is never set: Go's zero `time.Time`.
            "time" => self.out.push_str(ZERO_TIME),
            _ => self.number(value),
        }
    }

    /// `formatPtr`: the type with its stars, then the target with no type of its own.
    fn format_pointer(&mut self, id: &str, value: Option<&Value>, ignore_type: bool) {
        let ty = self.ty(id);
        let (name, elem) = (ty.name.clone(), ty.elem.clone().unwrap_or_default());
        match (value, ignore_type) {
            (None, true) => self.out.push_str("<nil>"),
            (None, false) => {
                self.out.push_str(&format!("({name})<nil>"));
            }
            (Some(value), _) => {
                if ignore_type {
                    self.out.push_str("<*>");
                } else {
                    self.out.push_str(&format!("({name})"));
                }
                self.format(&elem, Some(value), true);
            }
        }
    }

    fn format_struct(&mut self, id: &str, value: Option<&Value>) {
        let fields = self.types.get(id).fields();
        self.out.push('{');
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            self.out.push_str(field.go_name());
            self.out.push(':');
            let field_value = if field.inline() {
                value
            } else {
                value.and_then(|v| v.get(field.json_name()))
            };
            self.format(field.type_id(), field_value, false);
        }
        self.out.push('}');
    }

    /// A list: `nil` when empty, as the protobuf decode leaves it.
    fn format_slice(&mut self, id: &str, value: Option<&Value>) {
        let elem = self.ty(id).elem.clone().unwrap_or_default();
        match value.and_then(Value::as_array).filter(|items| !items.is_empty()) {
            None => self.out.push_str("<nil>"),
            Some(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(' ');
                    }
                    self.format(&elem, Some(item), true);
                }
                self.out.push(']');
            }
        }
    }

    /// A map: `nil` when empty, keys sorted (`SortKeys`: a string key sorts by its bytes).
    fn format_map(&mut self, id: &str, value: Option<&Value>) {
        let ty = self.ty(id);
        let (key_type, elem) = (ty.key.clone().unwrap_or_default(), ty.elem.clone().unwrap_or_default());
        match value.and_then(Value::as_object).filter(|entries| !entries.is_empty()) {
            None => self.out.push_str("<nil>"),
            Some(entries) => {
                let mut keys: Vec<&String> = entries.keys().collect();
                keys.sort();
                self.out.push_str("map[");
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        self.out.push(' ');
                    }
                    self.format(&key_type, Some(&Value::String(key.clone())), true);
                    self.out.push(':');
                    self.format(&elem, entries.get(key), true);
                }
                self.out.push(']');
            }
        }
    }

    /// An `intstr.IntOrString`: its JSON is the number or the string, its Go struct holds both.
    fn int_or_string(&mut self, value: Option<&Value>) {
        let (kind, int, text) = match value {
            Some(Value::String(text)) => (1, 0, text.as_str()),
            Some(number) => (0, number.as_i64().unwrap_or(0), ""),
            None => (0, 0, ""),
        };
        self.out.push_str(&format!(
            "{{Type:(intstr.Type){kind} IntVal:(int32){int} StrVal:(string){text}}}"
        ));
    }

    fn quantity(&mut self, value: Option<&Value>) {
        let parsed = value
            .and_then(Value::as_str)
            .and_then(|text| Quantity::parse(text).ok());
        match parsed {
            Some(quantity) => self.out.push_str(&quantity.spew()),
            None => self.out.push_str(ZERO_QUANTITY),
        }
    }

    fn number(&mut self, value: Option<&Value>) {
        match value {
            Some(Value::Number(number)) => self.out.push_str(&number.to_string()),
            _ => self.out.push('0'),
        }
    }
}

/// spew's print of Go's zero `time.Time` inside a `metav1.Time`.
const ZERO_TIME: &str = "{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}";

/// spew's print of a zero `resource.Quantity`.
const ZERO_QUANTITY: &str = "{i:(resource.int64Amount){value:(int64)0 scale:(resource.Scale)0} \
    d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string) Format:(resource.Format)}";
