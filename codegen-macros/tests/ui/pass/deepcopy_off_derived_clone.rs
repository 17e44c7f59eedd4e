//! `+k8s:deepcopy-gen=false` with a derived Clone: the derive must not claim Clone is missing.
mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +k8s:deepcopy-gen=false
    /// +groupName=example.dev
    #[derive(Codegen, Clone, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Thing {
        /// The API version, always written.
        #[serde(rename = "apiVersion")]
        pub api_version: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }

    /// Clone derived in a second attribute.
    ///
    /// +genclient
    /// +k8s:deepcopy-gen=false
    /// +groupName=example.dev
    #[derive(Codegen)]
    #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Other {
        /// The API version, always written.
        #[serde(rename = "apiVersion")]
        pub api_version: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }
}

fn main() {
    let _ = v1::Thing { api_version: Default::default(), kind: Default::default(), metadata: Default::default() }.clone();
    let _ = v1::Other { api_version: Default::default(), kind: Default::default(), metadata: Default::default() }.clone();
}
