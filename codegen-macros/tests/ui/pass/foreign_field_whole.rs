//! A field of another crate's type (here `std::net::IpAddr`), which can have no generated apply
//! configuration, is applied whole with `+k8s:applyconfiguration-gen=false`: the configuration
//! holds its values as they are, and sends them as the type writes them.
#![deny(warnings)]

mod v1 {
    use std::net::IpAddr;

    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, Debug, Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Gateway {
        /// The API version, always written.
        pub api_version: codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
        pub spec: GatewaySpec,
    }

    /// The desired gateway.
    #[derive(Codegen, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct GatewaySpec {
        /// +k8s:applyconfiguration-gen=false
        pub address: Option<IpAddr>,
        /// +k8s:applyconfiguration-gen=false
        pub peers: Vec<IpAddr>,
        pub port: i32,
    }
}

fn main() {
    use v1::*;
    let address: std::net::IpAddr = [10, 0, 0, 1].into();
    let config = GatewayApplyConfiguration::new("edge", "default").spec(
        GatewaySpecApplyConfiguration::default()
            .address(address)
            .peers([std::net::IpAddr::from([10, 0, 0, 2])]),
    );
    let sent = serde_json::to_value(&config).unwrap();
    assert_eq!(
        sent["spec"],
        serde_json::json!({ "address": "10.0.0.1", "peers": ["10.0.0.2"] }),
        "only what was set, each address as IpAddr writes it"
    );
    let read: GatewayApplyConfiguration = serde_json::from_value(sent).unwrap();
    assert_eq!(read, config);
}
