codegen_macros::clientset! {
    "example.dev" => crate::apis::example::v1 { Thing },
    "example.io" => crate::apis::exampleio::v1 { Other },
}

fn main() {}
