codegen_macros::clientset! {
    "example.dev" => crate::apis::example::stable { Thing },
}

fn main() {}
