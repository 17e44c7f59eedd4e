mod apis {
    pub mod example {
        pub mod v1 {
            /// Not derived: the clientset cannot reach it.
            pub struct Thing;
        }
    }
}

codegen_macros::clientset! {
    "example.dev" => crate::apis::example::v1 { Thing },
}

fn main() {}
