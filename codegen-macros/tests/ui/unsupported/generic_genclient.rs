mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Thing<T> {
        pub metadata: ObjectMeta,
        pub spec: T,
    }
}

fn main() {}
