codegen_macros::clientset! {
    crate::apis::example::v1 { Thing },
}

fn main() {}
