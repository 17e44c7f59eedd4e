//! The CEL environments kube-apiserver builds by Kubernetes version (`apiserver/pkg/cel/environment/base.go`).

/// One environment: the options of the Kubernetes minor `version`, on the cel-go release of a
/// kube-apiserver of minor `server`. kube-apiserver keeps a list of options, each with the minor
/// that introduced (and the one that removed) it: an expression new to an object compiles with
/// the options of `DefaultCompatibilityVersion()`, so that a server one minor older still
/// understands it; one the object already held (a stored one), with every option of the
/// server's own minor. The server's minor alone decides the cel-go release, whose checker words
/// some errors differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Environment {
    /// The compatibility version: options introduced up to this minor are in.
    pub(crate) version: u32,
    /// The minor of the server, whose vendored cel-go checks and estimates.
    pub(crate) server: u32,
}

/// The cel-go releases whose differences show in answers: v0.16.1 (kube-apiserver 1.28) and
/// v0.20.1 (1.31). 1.29 and 1.30 vendor v0.17, which this server has not been compared with:
/// they are given 1.28's behaviour, the one nearest in time that was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CelGo {
    V016,
    V020,
}

/// Libraries and checker options the environments differ by; each is in an environment from
/// the minor `base.go` introduces it at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Library {
    /// cel-go's standard declarations, `library.URLs()`, `library.Regex()`, `library.Lists()`.
    Base,
    /// `library.Authz()` from 1.27: the authorizer's checks (`authorizer.group('').resource('pods').check('get')`).
    Authz,
    /// `ext.Strings`: what version 0 (up to 1.28) and version 2 (from 1.29) both declare.
    Strings,
    /// What `ext.Strings(ext.StringsVersion(2))` adds from 1.29: `format`, `strings.quote`.
    StringsV2,
    /// `cel.CrossTypeNumericComparisons(true)` from 1.28: `1 < 1.5`.
    CrossTypeNumericComparisons,
    /// `cel.OptionalTypes()` from 1.28: `a.?b`, `optional.of(x)`, `[?x]`.
    OptionalTypes,
    /// `library.Quantity()` from 1.28.
    Quantity,
    /// `ext.Sets()` from 1.29.
    Sets,
    /// `library.IP()` from 1.30.
    Ip,
    /// `library.CIDR()` from 1.30.
    Cidr,
}

impl Library {
    /// Every library, in the order their declarations are added to an environment.
    pub(crate) const ALL: [Library; 10] = [
        Library::Base,
        Library::Strings,
        Library::Authz,
        Library::StringsV2,
        Library::CrossTypeNumericComparisons,
        Library::OptionalTypes,
        Library::Quantity,
        Library::Sets,
        Library::Ip,
        Library::Cidr,
    ];

    /// The name the declarations table heads its section with.
    pub(crate) fn section(self) -> &'static str {
        match self {
            Library::Base => "base",
            Library::Strings => "strings",
            Library::Authz => "authz",
            Library::StringsV2 => "strings-v2",
            Library::CrossTypeNumericComparisons => "cross-type-numeric-comparisons",
            Library::OptionalTypes => "optional-types",
            Library::Quantity => "quantity",
            Library::Sets => "sets",
            Library::Ip => "ip",
            Library::Cidr => "cidr",
        }
    }

    /// `IntroducedVersion` in `baseOpts`. (Version 0 of the strings library has a
    /// `RemovedVersion`, 1.29, but all it declares version 2 declares too.)
    fn introduced(self) -> u32 {
        match self {
            Library::Base | Library::Strings => 0,
            Library::Authz => 27,
            Library::StringsV2 | Library::Sets => 29,
            Library::CrossTypeNumericComparisons | Library::OptionalTypes | Library::Quantity => 28,
            Library::Ip | Library::Cidr => 30,
        }
    }
}

impl Environment {
    /// The environment a new expression compiles in on a server of minor `server`:
    /// `DefaultCompatibilityVersion()`, which is 1.27 on 1.28 and the previous minor
    /// (`MinCompatibilityVersion`) on 1.31.
    pub(crate) fn new_expressions(server: u32) -> Self {
        Self {
            version: server.saturating_sub(1),
            server,
        }
    }

    /// The environment a stored expression compiles (and every rule runs) in: all the options
    /// of the server's minor.
    pub(crate) fn stored_expressions(server: u32) -> Self {
        Self {
            version: server,
            server,
        }
    }

    /// Whether `library` is in this environment.
    pub(crate) fn has(self, library: Library) -> bool {
        library.introduced() <= self.version
    }

    /// The cel-go release of the server.
    pub(crate) fn cel_go(self) -> CelGo {
        if self.server >= 31 { CelGo::V020 } else { CelGo::V016 }
    }

    /// `cel.ASTValidators(ValidateDurationLiterals, ValidateTimestampLiterals,
    /// ValidateRegexLiterals, ValidateHomogeneousAggregateLiterals)`, from 1.29.
    pub(crate) fn validates_literals(self) -> bool {
        self.version >= 29
    }

    /// Whether `has()` costs nothing: 1.31 sets `checker.PresenceTestHasCost(false)` (cel-go
    /// v0.17.7 had made it cost one).
    pub(crate) fn free_presence_test(self) -> bool {
        self.cel_go() == CelGo::V020
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_expressions_should_compile_at_the_previous_minor() {
        let on_128 = Environment::new_expressions(28);
        assert!(!on_128.has(Library::OptionalTypes) && !on_128.has(Library::StringsV2));
        assert!(Environment::stored_expressions(28).has(Library::Quantity));
        let on_131 = Environment::new_expressions(31);
        assert_eq!(on_131.version, 30);
        assert!(on_131.has(Library::Ip) && on_131.has(Library::StringsV2));
        assert!(on_131.validates_literals());
    }

    #[test]
    fn the_cel_go_release_should_follow_the_server_not_the_compatibility_version() {
        assert_eq!(Environment::new_expressions(31).cel_go(), CelGo::V020);
        assert_eq!(Environment::stored_expressions(28).cel_go(), CelGo::V016);
        assert!(!Environment::stored_expressions(28).free_presence_test());
    }
}
