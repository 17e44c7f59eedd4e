//! The command line's tests, linked into one binary: code generation and the manifest
//! subcommands on real directories.

mod cli;
mod manifests;
