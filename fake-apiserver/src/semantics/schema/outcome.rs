//! kube-openapi's validation `Result` (`validate/result.go`): the errors found, each reported
//! once by its text, and how many checks ran (`MatchCount`, which picks the closest failing
//! branch of an `anyOf` or `oneOf`).

use super::openapi_errors::SchemaError;

/// kube-openapi's `Result`: the errors found and how many checks ran.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) errors: Vec<SchemaError>,
    pub(super) matches: u32,
}

impl Outcome {
    pub(super) fn add(&mut self, error: SchemaError) {
        if !self.errors.iter().any(|e| e.message == error.message) {
            self.errors.push(error);
        }
    }

    pub(super) fn merge(&mut self, other: Outcome) {
        for error in other.errors {
            self.add(error);
        }
        self.matches += other.matches;
    }

    pub(super) fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}
