//! A part tagged `+k8s:applyconfiguration-gen=false` gets no configuration of its own: the
//! configurations that hold it hold it whole, and send all of it.
#![deny(warnings)]

mod v1 {
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
    pub struct GatewaySpec {
        pub port: i32,
        pub window: Option<Window>,
    }

    /// A maintenance window, applied whole.
    ///
    /// +k8s:applyconfiguration-gen=false
    #[derive(Codegen, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Window {
        pub start: String,
        pub hours: u32,
    }
}

fn main() {
    use v1::*;
    let window = Window {
        start: "02:00".into(),
        hours: 0,
    };
    let config = GatewayApplyConfiguration::new("edge", "default")
        .spec(GatewaySpecApplyConfiguration::default().window(window.clone()));
    let sent = serde_json::to_value(&config).unwrap();
    assert_eq!(
        sent["spec"],
        serde_json::json!({ "window": { "start": "02:00", "hours": 0 } }),
        "the window whole, its zero hours included; the unset port left out"
    );
    assert_eq!(config.spec.and_then(|s| s.window), Some(window));
}
