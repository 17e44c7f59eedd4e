//! What several of the runtime's integration tests share: canned answers, an intercepting
//! client, objects, informers and seeded randomness.

pub mod answers;
pub mod informers;
pub mod intercepted;
pub mod objects;
pub mod reflecting;
pub mod seeded;
