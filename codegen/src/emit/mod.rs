//! Emitters: one pure function per artifact, from the model to tokens. Emitters never read raw
//! tags; everything they need is in the model.

mod deepcopy;
mod register;

pub use deepcopy::{clone_impl, deepcopy};
pub use register::registration;
