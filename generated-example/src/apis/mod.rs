//! Tagged API types, one module per group and version, as code-generator lays out `pkg/apis`.

pub mod cloudnative;
pub mod examplegroup;
pub mod samplecontroller;
