//! `+genclient:method=Name,verb=…,subresource=…,input=…,result=…`: extension methods, checked
//! as client-gen's extension generator checks them.

use proc_macro2::Span;

use super::Verb;
use crate::diag::{Diagnostic, Diagnostics};
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
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let slot = match key {
            "verb" => &mut verb,
            "subresource" => &mut subresource,
            "input" => &mut input,
            "result" => &mut result,
            other => {
                diagnostics.push(error(
                    format!("unknown key {other:?} in +genclient:method={name}"),
                    "the keys are verb, subresource, input and result",
                ));
                continue;
            }
        };
        *slot = Some(value.to_owned());
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
        ];
        let client = genclient(&tags(&lines), true, &mut diagnostics).unwrap();
        assert_eq!(
            client.methods.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
            ["GetScale", "UpdateScale", "Bad"]
        );
        let errors: Vec<String> = diagnostics.into_vec().into_iter().map(|d| d.message).collect();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("not supported by the extension generator"));
        assert!(errors[1].contains("input is only for create, update and apply"));
        assert!(errors[2].contains("needs a verb"));
    }
}
