use codegen_macros::Codegen;

mod v1 {
    use super::*;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen)]
    pub struct Thing {
        /// The API version, always written.
        #[allow(non_snake_case)]
        pub apiVersion: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
        pub spec: String,
    }
}

fn main() {}
