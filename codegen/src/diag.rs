//! Diagnostics: every problem in the input, each with a span, a message saying what is wrong and
//! a help line saying how to fix it; collected, never first-only.

use proc_macro2::Span;

/// One problem in the input.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Where: the tag's doc comment, the type, the field.
    pub span: Span,
    /// What is wrong, lowercase, e.g. `unknown tag +genclient:nonNamespace`.
    pub message: String,
    /// How to fix it, e.g. `did you mean +genclient:nonNamespaced?`.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A problem without a suggested fix.
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Self {
            span,
            message: message.into(),
            help: None,
        }
    }

    /// Adds how to fix it.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The message and help on one line, as both front ends print them.
    pub fn text(&self) -> String {
        match &self.help {
            Some(help) => format!("{}; {help}", self.message),
            None => self.message.clone(),
        }
    }

    /// A `compile_error!` at the span, for the derive.
    pub fn to_compile_error(&self) -> proc_macro2::TokenStream {
        syn::Error::new(self.span, self.text()).to_compile_error()
    }
}

/// Problems found so far.
#[derive(Debug, Default)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// Records a problem.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// Whether nothing is wrong.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The problems, in the order found.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }

    /// The problems, in the order found.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
}

/// The closest candidate to `input`, if one is close enough to be a likely typo.
pub fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| {
            (
                strsim::jaro_winkler(&input.to_lowercase(), &candidate.to_lowercase()),
                candidate,
            )
        })
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_should_catch_typos_and_nothing_else() {
        let tags = [
            "genclient",
            "genclient:nonNamespaced",
            "genclient:noStatus",
            "groupName",
        ];
        assert_eq!(
            did_you_mean("genclient:nonNamespace", tags),
            Some("genclient:nonNamespaced")
        );
        assert_eq!(did_you_mean("genclient:nostatus", tags), Some("genclient:noStatus"));
        assert_eq!(did_you_mean("groupname", tags), Some("groupName"));
        assert_eq!(did_you_mean("completely-different", tags), None);
    }
}
