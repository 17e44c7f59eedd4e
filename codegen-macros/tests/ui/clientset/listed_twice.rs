codegen_macros::clientset! {
    "example.dev" => crate::apis::example::v1 { Thing, Thing },
    "example.dev" => crate::apis::other::example::v1 { Other },
    "example.dev" => crate::apis::again::v1 { More },
}

fn main() {}
