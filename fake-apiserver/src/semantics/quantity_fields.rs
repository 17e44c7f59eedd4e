//! The quantities of a built-in object as `resource.Quantity` reads and writes them
//! (apimachinery's `api/resource/quantity.go`): `UnmarshalJSON` parses a string or a bare
//! number, refused in `ParseQuantity`'s words when it is none, and validation sees what it
//! parsed (so a number is kept as its text until then); `MarshalJSON` writes the canonical form
//! back unless the parser kept the text, so `0.5` is stored as `"500m"` and `1000000` as `"1M"`.

use serde_json::Value;

use crate::semantics::quantity::{Quantity, QuantityError};
use crate::semantics::shape::Shape;
use crate::storage::resource::ResourceInfo;

/// The definition of a quantity in the built-in shapes.
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

/// Reads every quantity of `object` (a built-in `info`'s) as a decode does: the first that is
/// none is refused; a number is kept as its text, which validation parses as Go parsed it.
pub(crate) fn decode(info: &ResourceInfo, object: &mut Value) -> Result<(), QuantityError> {
    walk(info, object, &mut |value| {
        let text = match value {
            Value::Null => return Ok(()),
            Value::String(text) => text.trim().to_owned(),
            Value::Number(number) => number.to_string(),
            // `true` or an object is no quantity's text either.
            _ => return Err(QuantityError::Format),
        };
        Quantity::parse(&text)?;
        *value = Value::String(text);
        Ok(())
    })
}

/// Writes every quantity of a validated `object` as `MarshalJSON` does.
pub(crate) fn encode(info: &ResourceInfo, object: &mut Value) {
    let _ = walk(info, object, &mut |value| {
        if let Some(quantity) = value.as_str().and_then(|text| Quantity::parse(text).ok()) {
            *value = Value::String(quantity.to_json_string());
        }
        Ok(())
    });
}

/// Calls `each` on every quantity of a built-in object, stopping at its first error.
fn walk(
    info: &ResourceInfo,
    object: &mut Value,
    each: &mut dyn FnMut(&mut Value) -> Result<(), QuantityError>,
) -> Result<(), QuantityError> {
    if !info.builtin {
        return Ok(());
    }
    visit(object, Shape::of(info), each)
}

fn visit(
    value: &mut Value,
    shape: Shape<'_>,
    each: &mut dyn FnMut(&mut Value) -> Result<(), QuantityError>,
) -> Result<(), QuantityError> {
    if shape.definition() == Some(QUANTITY) {
        return each(value);
    }
    match value {
        Value::Object(map) => map
            .iter_mut()
            .try_for_each(|(key, child)| visit(child, shape.child(key), each)),
        Value::Array(items) => {
            let items_shape = shape.items();
            items.iter_mut().try_for_each(|item| visit(item, items_shape, each))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(limits: Value) -> Value {
        json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": {"limits": limits}}]}})
    }

    #[test]
    fn numbers_should_read_as_quantities() {
        let info = ResourceInfo::builtin("", "v1", "Pod", "pods");
        let mut object = pod(json!({"cpu": 0.5, "memory": 1_000_000, "ephemeral-storage": "1Gi"}));
        decode(&info, &mut object).unwrap();
        // Validation sees the text Go parsed.
        assert_eq!(
            object["spec"]["containers"][0]["resources"]["limits"],
            json!({"cpu": "0.5", "memory": "1000000", "ephemeral-storage": "1Gi"})
        );
        encode(&info, &mut object);
        assert_eq!(
            object["spec"]["containers"][0]["resources"]["limits"],
            json!({"cpu": "500m", "memory": "1M", "ephemeral-storage": "1Gi"})
        );
    }

    #[test]
    fn a_string_that_is_no_quantity_should_be_refused() {
        let info = ResourceInfo::builtin("", "v1", "Pod", "pods");
        let mut object = pod(json!({"cpu": "half"}));
        assert_eq!(decode(&info, &mut object), Err(QuantityError::Format));
    }
}
