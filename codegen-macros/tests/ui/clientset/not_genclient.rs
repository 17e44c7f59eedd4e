mod apis {
    pub mod example {
        pub mod v1 {
            use codegen_macros::Codegen;

            /// A part of an API object, not an object.
            ///
            /// +k8s:deepcopy-gen=true
            #[derive(Codegen)]
            pub struct ThingSpec {
                pub replicas: i32,
            }
        }
    }
}

mod client {
    codegen_macros::clientset! {
        "example.dev" => crate::apis::example::v1 { ThingSpec },
    }
}

fn main() {}
