use codegen_macros::Codegen;

mod v1 {
    use super::*;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen)]
    pub enum Thing {
        A,
    }
}

fn main() {}
