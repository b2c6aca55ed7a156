//! Who a content block is for: `annotations.audience` (MCP 2025-11-25 "Annotations":
//! a subset of `["user", "assistant"]`; absent means both).

use rmcp::model::{Annotations, Role};

/// Who a content block is for. The server sets it on the blocks it writes
/// ([`crate::content::BlockStyle`]); the client view reads it back with
/// [`Audience::of`] (absent or empty `audience`: both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Audience {
    /// `"user"` is in the audience: show it to the user.
    pub user: bool,
    /// `"assistant"` is in the audience: give it to the model.
    pub assistant: bool,
}

impl Audience {
    /// `["user"]`: shown to the user, kept out of the model's context.
    pub const USER: Audience = Audience {
        user: true,
        assistant: false,
    };
    /// `["assistant"]`: for the model only.
    pub const ASSISTANT: Audience = Audience {
        user: false,
        assistant: true,
    };
    /// `["user", "assistant"]` (also what an absent `audience` means).
    pub const BOTH: Audience = Audience {
        user: true,
        assistant: true,
    };

    /// The `audience` roles to write.
    pub fn roles(self) -> Vec<Role> {
        let mut roles = Vec::with_capacity(2);
        if self.user {
            roles.push(Role::User);
        }
        if self.assistant {
            roles.push(Role::Assistant);
        }
        roles
    }

    /// The audience of a block with `annotations`: absent or empty `audience` means both.
    pub fn of(annotations: Option<&Annotations>) -> Self {
        match annotations.and_then(|a| a.audience.as_deref()) {
            Some(roles) if !roles.is_empty() => Audience {
                user: roles.contains(&Role::User),
                assistant: roles.contains(&Role::Assistant),
            },
            _ => Audience::BOTH,
        }
    }

    /// `audience: ["user"]`: shown to the user, kept out of the model's context.
    pub const fn is_user_only(self) -> bool {
        self.user && !self.assistant
    }

    /// `audience: ["assistant"]`: meant for the model only.
    pub const fn is_assistant_only(self) -> bool {
        self.assistant && !self.user
    }
}
