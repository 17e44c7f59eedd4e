//! client-go's JSONPath (`client-go/util/jsonpath`: `parser.go`, `node.go`, `jsonpath.go`),
//! which kube-apiserver evaluates a custom resource's printer columns with (apiextensions'
//! `tableconvertor.go`): the parser, `FindResults` with its walk of each node, and
//! `PrintResults` of one value.

mod eval;
mod parser;
mod syntax;
mod value;

pub(crate) use eval::JsonPath;
pub(crate) use value::{Found, go_text, print};

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::eval::EvalError;
    use super::*;

    /// `Execute` as kube-apiserver v1.28 prints: each node's values, spaced.
    fn execute(path: &JsonPath, data: &Value) -> Result<String, EvalError> {
        let results = path.find_results(data)?;
        Ok(results
            .iter()
            .map(|values| values.iter().map(|v| print(*v, 28)).collect::<Vec<_>>().join(" "))
            .collect())
    }

    fn run(template: &str, data: &Value) -> Result<String, EvalError> {
        execute(&JsonPath::parse(template).unwrap(), data)
    }

    fn lenient(template: &str, data: &Value) -> Result<String, EvalError> {
        execute(&JsonPath::parse(template).unwrap().allow_missing_keys(true), data)
    }

    fn pod() -> Value {
        json!({
            "metadata": {"name": "web", "labels": {"app.kubernetes.io/name": "web", "tier": "front"}},
            "spec": {"ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}, {"port": 9000}]},
            "status": {
                "conditions": [
                    {"type": "Ready", "status": "True", "weight": 2.5},
                    {"type": "Synced", "status": "False", "weight": 1}
                ],
                "phase": null
            }
        })
    }

    #[test]
    fn fields_and_slices_should_select_as_go_does() {
        let pod = pod();
        assert_eq!(run("{.spec.ports[*].name}", &pod).unwrap(), "http https");
        assert_eq!(run("{.spec.ports[-1].port}", &pod).unwrap(), "9000");
        assert_eq!(run("{.spec.ports[0:3:2].port}", &pod).unwrap(), "80 9000");
        assert_eq!(run("{.spec.ports[1:].name}", &pod).unwrap(), "https");
        assert_eq!(run("{.spec.ports[2:2]}", &pod).unwrap(), "");
        assert_eq!(
            run("port {.spec.ports[0]}!", &pod).unwrap(),
            r#"port {"name":"http","port":80}!"#
        );
        assert_eq!(
            run(r"{.metadata.labels.app\.kubernetes\.io/name}", &pod).unwrap(),
            "web"
        );
        assert_eq!(run("{.metadata.labels['tier']}", &pod).unwrap(), "front");
        assert_eq!(run("{.spec.ports[0]['name','port']}", &pod).unwrap(), "http 80");
        assert_eq!(run("{.status.conditions[*].weight}", &pod).unwrap(), "2.5 1");
    }

    #[test]
    fn missing_keys_should_fail_unless_allowed() {
        let pod = pod();
        assert_eq!(
            run("{.spec.replicas}", &pod).unwrap_err().to_string(),
            "replicas is not found"
        );
        assert_eq!(lenient("a{.spec.replicas}b", &pod).unwrap(), "ab");
        assert_eq!(
            run("{.spec.ports[*].name}", &pod).unwrap(),
            "http https",
            "a key found in some items is found"
        );
        assert_eq!(run("{.status.phase}", &pod).unwrap(), "<nil>");
    }

    #[test]
    fn filters_should_compare_as_template_funcs() {
        let pod = pod();
        let ready = r#"{.status.conditions[?(@.type=="Ready")].status}"#;
        assert_eq!(run(ready, &pod).unwrap(), "True");
        assert_eq!(
            run("{.status.conditions[?(@.type!='Ready')].type}", &pod).unwrap(),
            "Synced"
        );
        assert_eq!(run("{.spec.ports[?(@.port > 80)].port}", &pod).unwrap(), "443 9000");
        assert_eq!(run("{.spec.ports[?(@.port<=443)].port}", &pod).unwrap(), "80 443");
        assert_eq!(run("{.spec.ports[?(@.name)].port}", &pod).unwrap(), "80 443");
        assert_eq!(
            run("{.spec.ports[?(@.port >= 80.0)].port}", &pod)
                .unwrap_err()
                .to_string(),
            "incompatible types for comparison"
        );
        assert_eq!(
            lenient("{.spec.ports[?(@.name == 'http')].port}", &pod).unwrap(),
            "80",
            "items without the key are skipped"
        );
        assert_eq!(
            run("{.spec.ports[?(@.name == 'http')].port}", &pod)
                .unwrap_err()
                .to_string(),
            "name is not found"
        );
        assert_eq!(
            run("{.spec.ports[?(@.port <> 1)]}", &pod).unwrap_err().to_string(),
            "unrecognized filter operator <>"
        );
        assert_eq!(
            run("{.metadata[?(@.a)]}", &pod).unwrap_err().to_string(),
            "map[labels:map[app.kubernetes.io/name:web tier:front] name:web] is not array or slice and cannot be filtered"
        );
    }

    #[test]
    fn exists_filters_should_keep_items_whose_path_failed_with_values() {
        let data = json!({"items": [{"a": [1]}, {"a": []}, {"b": 1}]});
        assert_eq!(lenient("{.items[?(@.a[5])].a}", &data).unwrap(), "[1] []");
    }

    #[test]
    fn wildcards_and_recursion_should_walk_maps_in_key_order_and_strings_by_byte() {
        let data = json!({"b": {"name": "x"}, "a": [{"name": "y"}, 3], "s": "hi"});
        assert_eq!(run("{.*}", &data).unwrap(), r#"[{"name":"y"},3] {"name":"x"} hi"#);
        assert_eq!(run("{..name}", &data).unwrap(), "y x");
        assert_eq!(run("{.s.*}", &data).unwrap(), "104 105");
        assert_eq!(run("{..}", &json!({"k": [1]})).unwrap(), r#"{"k":[1]} [1]"#);
    }

    #[test]
    fn index_errors_should_read_as_go_writes_them() {
        let error = |t: &str| run(t, &pod()).unwrap_err().to_string();
        assert_eq!(
            error("{.spec.ports[3]}"),
            "array index out of bounds: index 3, length 3"
        );
        assert_eq!(
            error("{.spec.ports[-4]}"),
            "array index out of bounds: index -1, length 3"
        );
        assert_eq!(
            error("{.spec.ports[0:4]}"),
            "array index out of bounds: index 3, length 3"
        );
        assert_eq!(
            error("{.spec.ports[2:1]}"),
            "starting index 2 is greater than ending index 1"
        );
        assert_eq!(error("{.spec.ports[0:3:0]}"), "step must be > 0");
        assert_eq!(error("{.metadata[0]}"), "map[string]interface {} is not array or slice");
        assert_eq!(error("{.metadata.name[0]}"), "string is not array or slice");
        assert_eq!(error("{hello}"), "unrecognized identifier hello");
        assert_eq!(error("{end}"), "not in range, nothing to end");
    }

    #[test]
    fn ranges_should_repeat_their_body_and_keep_go_state() {
        let data = json!({"items": [{"n": "a", "v": [1, 2]}, {"n": "b", "v": []}], "kind": "List"});
        let template = "{range .items[*]}{.n}:{range .v[*]}{@},{end};{end}{.kind}";
        assert_eq!(run(template, &data).unwrap(), "a:1,2,;b:;List");
        assert_eq!(lenient("{range .none[*]}{.n}{end}", &data).unwrap(), "");
        // Go leaves the template re-sliced to the last range's body.
        let path = JsonPath::parse("{range .items[*]}{.n}{end}")
            .unwrap()
            .allow_missing_keys(true);
        assert_eq!(execute(&path, &data).unwrap(), "ab");
        assert_eq!(execute(&path, &data).unwrap_err(), EvalError::NotInRange);
    }

    #[test]
    fn literals_should_walk_as_go_values() {
        let pod = pod();
        assert_eq!(run(r#"{"x\ty"}"#, &pod).unwrap(), "x\ty");
        assert_eq!(run("{.spec.ports[*] 7}", &pod).unwrap(), "7 7 7");
        assert_eq!(run("{.missing 1.5}", &json!({"missing": true})).unwrap(), "1.5");
    }

    #[test]
    fn parse_errors_should_read_as_go_writes_them() {
        let error = |t: &str| JsonPath::parse(t).unwrap_err().to_string();
        assert_eq!(error("{.a b c"), "unclosed action");
        assert_eq!(error("{#}"), "unrecognized character in action: U+0023 '#'");
        assert_eq!(error("{\t}"), "unrecognized character in action: U+0009");
        assert_eq!(error("{1.2.3}"), "cannot parse number 1.2.3");
        assert_eq!(error("{.spec[0}"), "unterminated array");
        assert_eq!(error("{[a]}"), "invalid array index a");
        assert_eq!(error("{[x,'y']}"), "invalid array index x");
        assert_eq!(error("{[-]}"), "array index - is not a number");
        assert_eq!(error("{[1:-]}"), "array index - is not a number");
        assert_eq!(error("{.spec[?(@.a=='b']}"), "unterminated filter");
        assert_eq!(error("{[?(@.a)x}"), "unclosed array expect ]");
        assert_eq!(error("{....a}"), "invalid multiple recursive descent");
        assert_eq!(error(r#"{"abc}"#), "unterminated quoted string");
        assert_eq!(error(r#"{"\q"}"#), r#"unquote string "\q" error invalid syntax"#);
    }
}
