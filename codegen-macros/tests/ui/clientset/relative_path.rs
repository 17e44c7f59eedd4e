codegen_macros::clientset! {
    "example.dev" => apis::example::v1 { Thing },
}

fn main() {}
