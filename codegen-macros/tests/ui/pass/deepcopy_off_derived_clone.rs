//! `+k8s:deepcopy-gen=false` with a derived Clone: the derive must not claim Clone is missing.
mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +k8s:deepcopy-gen=false
    /// +groupName=example.dev
    #[derive(Codegen, Clone, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Thing {
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
        pub metadata: ObjectMeta,
    }
}

fn main() {
    let _ = v1::Thing { metadata: Default::default() }.clone();
    let _ = v1::Other { metadata: Default::default() }.clone();
}
