//! A kind tagged `+k8s:applyconfiguration-gen=false` has no apply configuration, so its client
//! has no `apply` (as client-gen has none without applyconfiguration-gen).

mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +groupName=example.dev
    /// +k8s:applyconfiguration-gen=false
    #[derive(Codegen, Debug, Default, serde::Serialize, serde::Deserialize)]
    pub struct Quiet {
        #[serde(rename = "apiVersion")]
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }
}

fn apply(client: &v1::QuietClient) {
    let _ = client.apply(&(), &codegen_runtime::ApplyOptions::new("me"));
}

fn main() {
    let _ = apply;
}
