//! Prints the CustomResourceDefinitions of the example API as a JSON array, for
//! `codegen-cli manifests` to write to `deploy/crds/` (see `hack/update-codegen.sh`).

use std::process::ExitCode;

fn main() -> ExitCode {
    match generated_example::generated::custom_resource_definitions() {
        Ok(crds) => match serde_json::to_string_pretty(&crds) {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: cannot write the CRDs as JSON: {error}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
