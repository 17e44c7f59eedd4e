//! `+genclient:method=Name,verb=…,subresource=…,input=…,result=…`: extension methods, checked
//! as client-gen's extension generator checks them.

use proc_macro2::Span;

use super::Verb;
use crate::diag::{Diagnostic, Diagnostics};
use crate::symbol::{METHOD_INPUT, METHOD_RESULT, METHOD_SUBRESOURCE, METHOD_VERB};
use crate::tags::Tag;

/// A `+genclient:method=Name,verb=…` extension method.
#[derive(Clone, Debug)]
pub struct Method {
    /// The Go-style method name, e.g. `GetScale`.
    pub name: String,
    /// The verb whose template it follows: create, update, get, list, patch or apply.
    pub verb: Verb,
    /// The subresource it addresses, e.g. `scale`.
    pub subresource: Option<String>,
    /// The request body type (create, update, apply).
    pub input: Option<String>,
    /// The response type.
    pub result: Option<String>,
    /// The tag, for diagnostics.
    pub span: Span,
}

impl Method {
    /// Whether it applies the kind's own apply configuration (`verb=apply` without `input=`).
    pub fn applies_kind(&self) -> bool {
        self.verb == Verb::Apply && self.input.is_none()
    }
}

/// Whether a Go type in `input=`/`result=` maps to Rust: a k8s.io/api or apimachinery type, or
/// a bare identifier of this module.
fn mappable(go: &str) -> bool {
    let (package, name) = go.rsplit_once('.').unwrap_or(("", go));
    let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && syn::parse_str::<syn::Ident>(name).is_ok();
    let known =
        package.is_empty() || package.starts_with("k8s.io/api/") || package.starts_with("k8s.io/apimachinery/pkg/");
    identifier && known
}

/// Extension methods must not clash with the generated verbs, with each other, or be keywords.
pub(crate) fn check_names(methods: &[Method], diagnostics: &mut Diagnostics) {
    let generated = crate::names::typed_client_methods();
    let mut seen: Vec<String> = Vec::new();
    for method in methods {
        let rust = crate::names::method(&method.name);
        let clash = generated.contains(&rust) || seen.contains(&rust);
        // A keyword would need a raw identifier (`r#type`): a method users cannot call plainly.
        if clash || rust.starts_with("r#") || syn::parse_str::<syn::Ident>(&rust).is_err() {
            diagnostics.push(
                Diagnostic::new(
                    method.span,
                    format!(
                        "+genclient:method={} becomes `{rust}`, which is taken or a Rust keyword",
                        method.name
                    ),
                )
                .help("choose another method name"),
            );
        }
        seen.push(rust);
    }
}

/// `Name,verb=V[,subresource=S][,input=T][,result=T]`, checked as client-gen checks it.
pub(super) fn method(tag: &Tag, diagnostics: &mut Diagnostics) -> Option<Method> {
    let mut parts = tag.value.split(',').map(str::trim);
    let name = parts.next().unwrap_or_default().to_owned();
    let error = |message: String, help: &str| Diagnostic::new(tag.span, message).help(help.to_owned());
    let valid_name =
        name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && name.chars().all(|c| c.is_ascii_alphanumeric());
    if !valid_name {
        diagnostics.push(error(
            format!("+genclient:method needs a method name first, found {name:?}"),
            "write +genclient:method=GetScale,verb=get,subresource=scale,result=…",
        ));
        return None;
    }
    let (mut verb, mut subresource, mut input, mut result) = (None, None, None, None);
    for part in parts {
        let Some((key, value)) = part.split_once('=') else {
            diagnostics.push(error(
                format!("invalid extension tag specification {part:?} in +genclient:method={name}"),
                "write key=value pairs: verb=…, subresource=…, input=…, result=…",
            ));
            continue;
        };
        if value.trim().is_empty() {
            diagnostics.push(error(
                format!("empty value of {key:?} for the {name} extension"),
                "give it a value or remove it",
            ));
            continue;
        }
        let slot = match key {
            METHOD_VERB => &mut verb,
            METHOD_SUBRESOURCE => &mut subresource,
            METHOD_INPUT => &mut input,
            METHOD_RESULT => &mut result,
            other => {
                diagnostics.push(error(
                    format!("unknown key {other:?} in +genclient:method={name}"),
                    "the keys are verb, subresource, input and result",
                ));
                continue;
            }
        };
        *slot = Some(value.trim().to_owned());
    }
    for (key, ty) in [(METHOD_INPUT, &input), (METHOD_RESULT, &result)] {
        if let Some(ty) = ty.as_deref().filter(|ty| !mappable(ty)) {
            diagnostics.push(error(
                format!("{key}={ty} of +genclient:method={name} names a type the generator cannot map to Rust"),
                "use a k8s.io/api/<group>/<version>.<Type> or k8s.io/apimachinery/pkg/….<Type> type, or a type of this module by its bare name",
            ));
            return None;
        }
    }
    let Some(verb_name) = verb else {
        diagnostics.push(error(
            format!("+genclient:method={name} needs a verb"),
            "add verb=get (or create, update, list, patch, apply)",
        ));
        return None;
    };
    let verb = match Verb::parse(&verb_name) {
        Some(verb @ (Verb::Create | Verb::Update | Verb::Get | Verb::List | Verb::Patch | Verb::Apply)) => verb,
        _ => {
            diagnostics.push(error(
                format!("verb {verb_name:?} of +genclient:method={name} is not supported by the extension generator"),
                "use create, update, get, list, patch or apply",
            ));
            return None;
        }
    };
    if input.is_some() && !matches!(verb, Verb::Create | Verb::Update | Verb::Apply) {
        diagnostics.push(error(
            format!("+genclient:method={name}: input is only for create, update and apply"),
            "remove input=",
        ));
    }
    Some(Method {
        name,
        verb,
        subresource,
        input,
        result,
        span: tag.span,
    })
}

#[cfg(test)]
mod tests {
    use super::super::genclient;
    use super::*;

    fn tags(lines: &[&str]) -> Vec<Tag> {
        lines
            .iter()
            .map(|line| {
                let (key, value) = line.split_once('=').unwrap_or((line, ""));
                Tag {
                    key: key.to_owned(),
                    value: value.to_owned(),
                    span: Span::call_site(),
                }
            })
            .collect()
    }

    #[test]
    fn methods_should_be_checked_like_client_gen() {
        let mut diagnostics = Diagnostics::default();
        let lines = [
            "genclient",
            "genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale",
            "genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale",
            "genclient:method=Evict,verb=deleteCollection",
            "genclient:method=Bad,verb=get,input=X",
            "genclient:method=NoVerb",
            "genclient:method=Empty,verb=get,result=",
            "genclient:method=Foreign,verb=get,result=github.com/x/apis/v1.Bar",
            "genclient:method=PatchStatus,verb=patch,subresource=status",
        ];
        let client = genclient(&tags(&lines), true, &mut diagnostics).unwrap();
        assert_eq!(
            client.methods.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
            ["GetScale", "UpdateScale", "Bad", "Empty", "PatchStatus"]
        );
        let errors: Vec<String> = diagnostics.into_vec().into_iter().map(|d| d.message).collect();
        assert_eq!(errors.len(), 6, "{errors:?}");
        assert!(errors[0].contains("not supported by the extension generator"));
        assert!(errors[1].contains("input is only for create, update and apply"));
        assert!(errors[2].contains("needs a verb"));
        assert!(errors[3].contains("empty value of \"result\" for the Empty extension"));
        assert!(errors[4].contains("names a type the generator cannot map"));
        assert!(errors[5].contains("becomes `patch_status`, which is taken"));
    }
}
