codegen_macros::clientset! {
    "example.dev" => crate::apis::example::v1 {},
}

fn main() {}
