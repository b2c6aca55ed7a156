//! The rule sets, as data: one row per rule with its id, the hosts it applies to, what the
//! host requires, the fix and the public page or thread it comes from. [`super::check`]
//! evaluates the `check` of each row; nothing else decides what a host accepts.

use super::Host::{self, *};

/// The characters a server name may take in the host prefixes Claude Code and Codex put in
/// front of a tool name (`mcp__<server>__<tool>`, at most 64 characters in all): the
/// budget of a tool name is 64 − 7 (`mcp__`, `__`) − this allowance = 41.
///
/// Sixteen fits the names people give a server in `claude mcp add` and Codex's
/// `config.toml` (`helpdesk`, `github`, `linear-prod`); a connector that uses a 36-character
/// UUID as its server name leaves 21 characters, which no allowance can promise.
pub const SERVER_NAME_ALLOWANCE: usize = 16;

/// The longest a tool name should be so that `mcp__<server>__<tool>` stays within 64
/// characters for a server name of up to [`SERVER_NAME_ALLOWANCE`] characters: 41.
pub const PREFIXED_NAME_BUDGET: usize = 64 - "mcp__".len() - "__".len() - SERVER_NAME_ALLOWANCE;

/// Characters of a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chars {
    /// `A-Z a-z 0-9 _ -`.
    Portable,
    /// `A-Z a-z 0-9 _ - .` (MCP 2025-11-25).
    Spec,
    /// `A-Z a-z _` (the first character of a Gemini function name).
    GeminiFirst,
    /// `A-Z a-z 0-9 _ - . :`.
    Gemini,
}

impl Chars {
    pub(crate) fn allows(self, c: char) -> bool {
        match self {
            Chars::Portable => c.is_ascii_alphanumeric() || matches!(c, '_' | '-'),
            Chars::Spec => c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'),
            Chars::GeminiFirst => c.is_ascii_alphabetic() || c == '_',
            Chars::Gemini => c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'),
        }
    }
}

/// What a rule checks in one tool of a `tools/list` payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The payload is a `tools/list` result (an object with a `tools` array, or the array).
    ToolsList,
    /// `name` is 1 to `max` characters: the first of `first`, the rest of `rest`.
    Name {
        first: Chars,
        rest: Chars,
        max: usize,
    },
    /// `name` fits a host prefix: at most [`PREFIXED_NAME_BUDGET`] characters.
    PrefixedName,
    /// No two tools share a `name`.
    UniqueName,
    /// `description` is present and not blank.
    Description,
    /// `description` has at most this many characters.
    DescriptionLength(usize),
    /// `inputSchema` is an object schema with `type: "object"`.
    RootObject,
    /// None of these keywords at the root of `inputSchema`.
    RootKeywords(&'static [&'static str]),
    /// None of these keywords anywhere in `inputSchema`.
    Keywords(&'static [&'static str]),
    /// No `type` list anywhere in `inputSchema`.
    TypeList,
    /// No boolean schema (`true`, `false`) anywhere in `inputSchema` except as the value of
    /// `additionalProperties`.
    BooleanSchema,
    /// Every object schema in `inputSchema` says `additionalProperties: false`.
    ClosedObjects,
    /// Every property of every object schema in `inputSchema` is `required`.
    AllRequired,
}

/// One rule of a host: what it requires, how to comply, and where that is documented or
/// was observed.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The rule's id (`claude-name`, `gemini-type-list`, ...), stable across releases.
    pub id: &'static str,
    /// The hosts that apply it (never [`Host::Claude`], which is a group).
    pub hosts: &'static [Host],
    /// What the host requires, in one sentence.
    pub requires: &'static str,
    /// How to comply, in one sentence (for an mcp-result server: which attribute or type
    /// to change).
    pub fix: &'static str,
    /// The documentation page or public issue thread the rule comes from.
    pub source: &'static str,
    pub(crate) check: Check,
}

const CLAUDE: &[Host] = &[ClaudeApi, ClaudeDesktop, ClaudeCode];
const EVERY_HOST: &[Host] = Host::ALL;
/// Every host but MCP itself ([`Host::ALL`] lists [`Host::Mcp`] first).
const EVERY_CLIENT: &[Host] = Host::ALL.split_at(1).1;

const RENAME: &str = "rename the tool with `#[mcp_tool(name = \"...\")]` (letters, digits, `_` \
                      and `-`; at most 64 characters)";

/// Every rule, in the order findings are reported.
pub const RULES: &[Rule] = &[
    Rule {
        id: "tools-list",
        hosts: EVERY_HOST,
        requires: "a `tools/list` result is an object with a `tools` array of tool objects",
        fix: "answer `tools/list` with `{\"tools\": [...]}`",
        source: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools",
        check: Check::ToolsList,
    },
    Rule {
        id: "mcp-name",
        hosts: &[Mcp],
        requires: "tool names have 1 to 128 characters of `A-Z a-z 0-9 _ - .`",
        fix: RENAME,
        source: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names",
        check: Check::Name {
            first: Chars::Spec,
            rest: Chars::Spec,
            max: 128,
        },
    },
    Rule {
        id: "claude-name",
        hosts: CLAUDE,
        requires: "tool names match `^[a-zA-Z0-9_-]{1,64}$`; Claude Desktop withholds every \
                   tool of a server when one name does not",
        fix: RENAME,
        source: "https://github.com/evoila/meho/issues/2745",
        check: Check::Name {
            first: Chars::Portable,
            rest: Chars::Portable,
            max: 64,
        },
    },
    Rule {
        id: "openai-name",
        hosts: &[OpenAi, OpenAiStrict, Codex],
        requires: "function names match `^[a-zA-Z0-9_-]+$` and have at most 64 characters; \
                   the API answers 400 otherwise",
        fix: RENAME,
        source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
        check: Check::Name {
            first: Chars::Portable,
            rest: Chars::Portable,
            max: 64,
        },
    },
    Rule {
        id: "copilot-name",
        hosts: &[VsCodeCopilot],
        requires: "tool names match `^[a-zA-Z0-9_-]{1,64}$`; the Copilot API answers 400 \
                   otherwise",
        fix: RENAME,
        source: "https://github.com/github/copilot-cli/issues/1879",
        check: Check::Name {
            first: Chars::Portable,
            rest: Chars::Portable,
            max: 64,
        },
    },
    Rule {
        id: "gemini-name",
        hosts: &[Gemini],
        requires: "function names start with a letter or `_`, then `A-Z a-z 0-9 _ - . :`, at \
                   most 64 characters",
        fix: "rename the tool with `#[mcp_tool(name = \"...\")]`, starting with a letter",
        source: "https://ai.google.dev/api/caching#FunctionDeclaration",
        check: Check::Name {
            first: Chars::GeminiFirst,
            rest: Chars::Gemini,
            max: 64,
        },
    },
    Rule {
        id: "claude-code-prefixed-name",
        hosts: &[ClaudeCode],
        requires: "Claude Code calls a tool `mcp__<server>__<tool>`, which the Claude API \
                   limits to 64 characters: tool names of at most 41 characters leave 16 for \
                   the server name",
        fix: "shorten the name with `#[mcp_tool(name = \"...\")]` to 41 characters or fewer",
        source: "https://github.com/anthropics/claude-code/issues/22276",
        check: Check::PrefixedName,
    },
    Rule {
        id: "codex-prefixed-name",
        hosts: &[Codex],
        requires: "Codex calls a tool `mcp__<server>__<tool>` and replaces a name longer than \
                   64 characters with a hash: tool names of at most 41 characters leave 16 \
                   for the server name",
        fix: "shorten the name with `#[mcp_tool(name = \"...\")]` to 41 characters or fewer",
        source: "https://github.com/openai/codex/issues/1289",
        check: Check::PrefixedName,
    },
    Rule {
        id: "unique-name",
        hosts: EVERY_HOST,
        requires: "tool names are unique within a server",
        fix: "give each tool its own name (`#[mcp_tools]` refuses duplicates at compile time)",
        source: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names",
        check: Check::UniqueName,
    },
    Rule {
        id: "description",
        hosts: EVERY_CLIENT,
        requires: "every tool has a description: the model chooses tools by it",
        fix: "add a doc comment to the tool method or `#[mcp_tool(description = \"...\")]`",
        source: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#best-practices-for-tool-definitions",
        check: Check::Description,
    },
    Rule {
        id: "openai-description-length",
        hosts: &[OpenAi, OpenAiStrict],
        requires: "function descriptions have at most 1024 characters; the API answers 400 \
                   otherwise",
        fix: "shorten the tool's doc comment to 1024 characters; move details into the \
              parameters' docs",
        source: "https://github.com/microsoft/genaiscript/issues/1381",
        check: Check::DescriptionLength(1024),
    },
    Rule {
        id: "claude-code-description-length",
        hosts: &[ClaudeCode],
        requires: "Claude Code cuts tool descriptions after 2048 characters",
        fix: "shorten the tool's doc comment to 2048 characters; move details into the \
              parameters' docs",
        source: "https://github.com/anthropics/claude-code/issues/41593",
        check: Check::DescriptionLength(2048),
    },
    Rule {
        id: "input-object",
        hosts: EVERY_HOST,
        requires: "`inputSchema` is a JSON Schema object with `type: \"object\"`",
        fix: "take the arguments as one struct with named fields",
        source: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool",
        check: Check::RootObject,
    },
    Rule {
        id: "claude-root-composition",
        hosts: CLAUDE,
        requires: "no `oneOf`, `anyOf` or `allOf` at the root of `inputSchema`: the Claude \
                   API (also on Bedrock and Vertex) answers 400 for every request that lists \
                   the tool",
        fix: "make the arguments one struct; put an enum in a field instead of flattening it",
        source: "https://github.com/anthropics/claude-code/issues/5319",
        check: Check::RootKeywords(&["oneOf", "anyOf", "allOf"]),
    },
    Rule {
        id: "gemini-type-list",
        hosts: &[Gemini],
        requires: "one `type` per schema (no `[\"string\", \"null\"]`): Gemini answers 400 for \
                   every request",
        fix: "let mcp-result advertise its portable input schema (an optional field is not \
              `required`); a hand-written schema uses one type",
        source: "https://github.com/github/copilot-cli/issues/4623",
        check: Check::TypeList,
    },
    Rule {
        id: "gemini-boolean-schema",
        hosts: &[Gemini],
        requires: "no boolean schema (`true`, `false`) in place of a schema object",
        fix: "write `{}` for \"any value\" (mcp-result's portable input schema does)",
        source: "https://github.com/github/copilot-cli/issues/4623",
        check: Check::BooleanSchema,
    },
    Rule {
        id: "gemini-const",
        hosts: &[Gemini],
        requires: "no `const`: Gemini's schema has no such field and answers 400",
        fix: "use `enum` with one value (mcp-result's portable input schema does)",
        source: "https://github.com/zed-industries/zed/issues/44875",
        check: Check::Keywords(&["const"]),
    },
    Rule {
        id: "gemini-one-of",
        hosts: &[Gemini],
        requires: "no `oneOf`: Gemini's schema has `anyOf` only",
        fix: "use `anyOf`, or `enum` for a unit enum (mcp-result's portable input schema does)",
        source: "https://ai.google.dev/api/caching#Schema",
        check: Check::Keywords(&["oneOf"]),
    },
    Rule {
        id: "gemini-pattern-properties",
        hosts: &[Gemini],
        requires: "no `patternProperties`: Gemini rejects the schema",
        fix: "use `additionalProperties` and say the key rule in the description \
              (mcp-result's portable input schema does for maps with non-string keys)",
        source: "https://github.com/langchain-ai/langchain-google/issues/617",
        check: Check::Keywords(&["patternProperties"]),
    },
    Rule {
        id: "gemini-property-names",
        hosts: &[Gemini],
        requires: "no `propertyNames`: Gemini answers 400",
        fix: "say the key rule in the description instead",
        source: "https://github.com/tailcallhq/forgecode/pull/3426",
        check: Check::Keywords(&["propertyNames"]),
    },
    Rule {
        id: "codex-ref",
        hosts: &[Codex],
        requires: "no `$ref` in `inputSchema`: Codex shows such a parameter as a string",
        fix: "inline the definition (mcp-result's portable input schema inlines every \
              non-recursive one); a recursive argument type has no such form",
        source: "https://github.com/openai/codex/issues/3152",
        check: Check::Keywords(&["$ref"]),
    },
    Rule {
        id: "codex-any-of",
        hosts: &[Codex],
        requires: "no `anyOf` in `inputSchema`: Codex turns such a parameter into a string",
        fix: "give the field one shape: a unit enum, or a struct with optional fields instead \
              of an enum with data",
        source: "https://github.com/openai/codex/issues/13768",
        check: Check::Keywords(&["anyOf"]),
    },
    Rule {
        id: "copilot-ref",
        hosts: &[VsCodeCopilot],
        requires: "no `$ref` in `inputSchema`: Copilot cannot build the arguments of such a \
                   parameter",
        fix: "inline the definition (mcp-result's portable input schema inlines every \
              non-recursive one); a recursive argument type has no such form",
        source: "https://github.com/github/copilot-cli/issues/1876",
        check: Check::Keywords(&["$ref"]),
    },
    Rule {
        id: "openai-strict-root",
        hosts: &[OpenAiStrict],
        requires: "in strict mode the root of `inputSchema` is not `anyOf`",
        fix: "make the arguments one struct",
        source: "https://platform.openai.com/docs/guides/structured-outputs#root-objects-must-not-be-anyof-and-must-be-an-object",
        check: Check::RootKeywords(&["anyOf"]),
    },
    Rule {
        id: "openai-strict-keywords",
        hosts: &[OpenAiStrict],
        requires: "strict mode supports neither `allOf`, `oneOf`, `not`, `if`/`then`/`else`, \
                   `dependentRequired`, `dependentSchemas`, `patternProperties`, \
                   `propertyNames` nor `unevaluatedProperties`",
        fix: "express the constraint with `anyOf`, `enum` or plain properties",
        source: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
        check: Check::Keywords(&[
            "allOf",
            "oneOf",
            "not",
            "if",
            "then",
            "else",
            "dependentRequired",
            "dependentSchemas",
            "patternProperties",
            "propertyNames",
            "unevaluatedProperties",
        ]),
    },
    Rule {
        id: "openai-strict-closed-objects",
        hosts: &[OpenAiStrict],
        requires: "in strict mode every object says `additionalProperties: false`",
        fix: "add `#[serde(deny_unknown_fields)]` to the argument types (maps have no strict \
              form)",
        source: "https://platform.openai.com/docs/guides/structured-outputs#additionalproperties-false-must-always-be-set-in-objects",
        check: Check::ClosedObjects,
    },
    Rule {
        id: "openai-strict-required",
        hosts: &[OpenAiStrict],
        requires: "in strict mode every property is `required` (an optional one is required \
                   and nullable), which no single-type schema can say",
        fix: "make the field required, or serve this host with optional arguments as they \
              are (strict-mode hosts such as the OpenAI Agents SDK then require them)",
        source: "https://platform.openai.com/docs/guides/structured-outputs#all-fields-must-be-required",
        check: Check::AllRequired,
    },
];
