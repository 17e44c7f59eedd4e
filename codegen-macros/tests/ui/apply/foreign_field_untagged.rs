//! A field of another crate's type without `+k8s:applyconfiguration-gen=false`: neither crate
//! may give it an apply configuration, and the error names the tag.

mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, Debug, Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Gateway {
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
        pub address: Option<std::net::IpAddr>,
    }
}

fn main() {}
