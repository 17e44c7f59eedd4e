//! The aggregate over every package: the `Clientset` (client-gen's versioned clientset) and the
//! `SharedInformerFactory` with its group accessors (informer-gen's factory and group packages).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::informer::has_informer;
use crate::Config;
use crate::model::Package;
use crate::names;

/// A package and the path, from the aggregate's module, of the module its artifacts are in.
pub struct PackageModule<'a> {
    /// The package (its group, Go group name and version).
    pub package: &'a Package,
    /// Where its clients and informers are, e.g. `cloudnative::v1alpha1`.
    pub module: syn::Path,
    /// Whether it has a group-version client (some type is `+genclient`).
    pub clients: bool,
    /// Whether it has version informers (some type has an informer).
    pub informers: bool,
}

impl<'a> PackageModule<'a> {
    /// A package whose types are known, at `module`.
    pub fn new(package: &'a Package, module: syn::Path) -> Self {
        Self {
            clients: package.types.iter().any(|t| t.genclient.is_some()),
            informers: package.types.iter().any(has_informer),
            package,
            module,
        }
    }
}

/// `Clientset`, `SharedInformerFactory` and the group accessors over `packages`.
pub fn aggregate(packages: &[PackageModule<'_>], config: &Config) -> TokenStream {
    let rt = &config.runtime;
    let clients = packages.iter().filter(|p| p.clients).map(|p| {
        let (go_name, version) = (&p.package.group_go_name, &p.package.version);
        let (module, client) = (&p.module, names::group_version_client(go_name, version));
        let method = names::group_version_method(go_name, version);
        let doc = format!(" The typed clients of `{}/{}`.", p.package.group, p.package.version);
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #method(&self) -> #module::#client {
                #module::#client::new(self.client.clone())
            }
        }
    });
    // Group accessors collect the versions of each group: factory.cloudnative().v1alpha1().
    let mut groups: BTreeMap<&str, Vec<&PackageModule<'_>>> = BTreeMap::new();
    for p in packages.iter().filter(|p| p.informers) {
        groups.entry(p.package.group_go_name.as_str()).or_default().push(p);
    }
    let group_structs = groups.iter().map(|(go_name, versions)| {
        let ident = names::group_informers(go_name);
        let doc = format!(
            " The shared informers of the `{}` API group, by version.",
            versions[0].package.group
        );
        let accessors = versions.iter().map(|p| {
            let informers = names::version_informers(&p.package.group_go_name, &p.package.version);
            let module = &p.module;
            let version = format_ident!("{}", p.package.version);
            let doc = format!(" The informers of `{}/{}`.", p.package.group, p.package.version);
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #version(&self) -> #module::#informers {
                    #module::#informers::new(self.factory.clone())
                }
            }
        });
        quote! {
            #[doc = #doc]
            #[derive(Clone)]
            pub struct #ident {
                factory: #rt::cache::SharedInformerFactory,
            }

            impl #ident {
                #(#accessors)*
            }
        }
    });
    let group_getters = groups.iter().map(|(go_name, versions)| {
        let (ident, method) = (names::group_informers(go_name), names::group_method(go_name));
        let doc = format!(" The informers of the `{}` API group.", versions[0].package.group);
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #method(&self) -> #ident {
                #ident { factory: self.inner.clone() }
            }
        }
    });
    quote! {
        /// The typed clientset: a client per API group version, over one `kube::Client` (real or
        /// in-memory).
        #[derive(Clone)]
        pub struct Clientset {
            client: ::kube::Client,
        }

        impl Clientset {
            /// A clientset over `client`.
            #[inline]
            pub fn new(client: ::kube::Client) -> Self {
                Self { client }
            }

            /// The underlying client.
            #[inline]
            pub fn client(&self) -> &::kube::Client {
                &self.client
            }

            #(#clients)*
        }

        /// Shared informers for every type of the clientset: one watch per type, whoever asks.
        #[derive(Clone)]
        pub struct SharedInformerFactory {
            inner: #rt::cache::SharedInformerFactory,
        }

        impl ::std::convert::From<#rt::cache::SharedInformerFactory> for SharedInformerFactory {
            fn from(inner: #rt::cache::SharedInformerFactory) -> Self {
                Self { inner }
            }
        }

        impl SharedInformerFactory {
            /// A factory watching all namespaces, without resync.
            #[inline]
            pub fn new(clientset: &Clientset) -> Self {
                Self::builder(clientset).build()
            }

            /// Configures a factory: namespace, selectors, resync, transforms.
            #[inline]
            pub fn builder(clientset: &Clientset) -> #rt::cache::SharedInformerFactoryBuilder<Self> {
                #rt::cache::SharedInformerFactory::builder_for(clientset.client.clone())
            }

            /// Starts every informer requested so far that is not running.
            #[inline]
            pub fn start(&self) {
                self.inner.start();
            }

            /// Waits until every started informer has synced; each one's state by type.
            #[inline]
            pub async fn wait_for_cache_sync(&self) -> ::std::collections::BTreeMap<&'static str, bool> {
                self.inner.wait_for_cache_sync().await
            }

            /// Stops every informer and waits for them.
            #[inline]
            pub async fn shutdown(&self) {
                self.inner.shutdown().await;
            }

            /// The runtime factory, for informers of other types (e.g. built-in Deployments).
            #[inline]
            pub fn inner(&self) -> &#rt::cache::SharedInformerFactory {
                &self.inner
            }

            #(#group_getters)*
        }

        #(#group_structs)*
    }
}
