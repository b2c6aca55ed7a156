//! serde's `rename_all` rules, applied to field names exactly as serde does.

/// The rule named by a `rename_all` value, or `None` for an unknown name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    pub fn from_str(name: &str) -> Option<Self> {
        Some(match name {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// Applies the rule to a field name (serde's `apply_to_field`).
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => {
                let pascal = Self::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn field_rules_match_serde() {
        assert_eq!(Camel.apply_to_field("retry_safe"), "retrySafe");
        assert_eq!(Camel.apply_to_field("audit_event_id"), "auditEventId");
        assert_eq!(Pascal.apply_to_field("very_tasty"), "VeryTasty");
        assert_eq!(ScreamingSnake.apply_to_field("very_tasty"), "VERY_TASTY");
        assert_eq!(Kebab.apply_to_field("very_tasty"), "very-tasty");
        assert_eq!(ScreamingKebab.apply_to_field("very_tasty"), "VERY-TASTY");
        assert_eq!(Upper.apply_to_field("very_tasty"), "VERY_TASTY");
        assert_eq!(Lower.apply_to_field("very_tasty"), "very_tasty");
    }
}
