//! The write contract's keys, the derive's copy. A proc-macro crate cannot link
//! `mcp-result-core`, so this is the one place the derive lists them; the test below reads
//! core's `wire/keys.rs` and proves both lists equal.

/// The keys every write tool's `structuredContent` must serialize (core's
/// `keys::CONTRACT_KEYS`).
pub const CONTRACT_KEYS: [&str; 3] = ["status", "retrySafe", "auditEventId"];

/// The write contract's optional companions, type-checked where a result type has them
/// (core's `keys::COMPANION_KEYS`).
pub const COMPANION_KEYS: [&str; 4] = [
    "externalId",
    "requiresHumanReview",
    "redactionApplied",
    "approvalId",
];

/// One write-contract key, for the typed model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ContractKey {
    Status,
    RetrySafe,
    AuditEventId,
    ExternalId,
    RequiresHumanReview,
    RedactionApplied,
    ApprovalId,
}

impl ContractKey {
    /// Every key: the required ones, then the companions, in the lists' order.
    pub const ALL: [ContractKey; 7] = [
        ContractKey::Status,
        ContractKey::RetrySafe,
        ContractKey::AuditEventId,
        ContractKey::ExternalId,
        ContractKey::RequiresHumanReview,
        ContractKey::RedactionApplied,
        ContractKey::ApprovalId,
    ];

    /// The key on the wire.
    pub fn name(self) -> &'static str {
        match self {
            ContractKey::Status => CONTRACT_KEYS[0],
            ContractKey::RetrySafe => CONTRACT_KEYS[1],
            ContractKey::AuditEventId => CONTRACT_KEYS[2],
            ContractKey::ExternalId => COMPANION_KEYS[0],
            ContractKey::RequiresHumanReview => COMPANION_KEYS[1],
            ContractKey::RedactionApplied => COMPANION_KEYS[2],
            ContractKey::ApprovalId => COMPANION_KEYS[3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The string array of `pub const <name>: [&str; N] = [...]` in `file`.
    fn const_list(file: &syn::File, name: &str) -> Vec<String> {
        let item = file
            .items
            .iter()
            .find_map(|item| match item {
                syn::Item::Const(item) if item.ident == name => Some(item),
                _ => None,
            })
            .unwrap_or_else(|| panic!("core's wire/keys.rs has no `const {name}`"));
        let syn::Expr::Array(array) = &*item.expr else {
            panic!("`{name}` is not an array literal");
        };
        array
            .elems
            .iter()
            .map(|elem| match elem {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(lit),
                    ..
                }) => lit.value(),
                _ => panic!("`{name}` holds something other than string literals"),
            })
            .collect()
    }

    #[test]
    fn contract_keys_equal_cores() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../mcp-result-core/src/wire/keys.rs"
        );
        let source =
            std::fs::read_to_string(path).unwrap_or_else(|error| panic!("reading {path}: {error}"));
        let file = syn::parse_file(&source).expect("core's wire/keys.rs parses");
        assert_eq!(const_list(&file, "CONTRACT_KEYS"), CONTRACT_KEYS);
        assert_eq!(const_list(&file, "COMPANION_KEYS"), COMPANION_KEYS);
    }

    #[test]
    fn every_key_is_listed_once() {
        let names: Vec<&str> = ContractKey::ALL.iter().map(|key| key.name()).collect();
        let listed: Vec<&str> = CONTRACT_KEYS
            .iter()
            .chain(&COMPANION_KEYS)
            .copied()
            .collect();
        assert_eq!(names, listed);
    }
}
