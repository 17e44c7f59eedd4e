//! What the server keeps: the resource table (what is served, and how), the versioned object
//! store with its watch log, and the JSON accessors every layer reads objects through.

pub(crate) mod builtin;
pub(crate) mod object;
pub(crate) mod registry;
pub(crate) mod resource;
pub(crate) mod store;
