//! The API types of the two bundled controllers and the code generated from them:
//! `cloudnative.tw/v1alpha1` VirtualMachine (controller101) and `samplecontroller.k8s.io/v1alpha1`
//! Foo (sample-controller). `hack/update-codegen.sh` regenerates `generated`;
//! `hack/verify-codegen.sh` fails when it is out of date.

pub mod apis;
#[rustfmt::skip]
pub mod generated;
