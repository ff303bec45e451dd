//! The tool catalogue: every `servo_*` tool as one row of [`TOOLS`] — its name,
//! description, annotations and action fields together. `tools/list` builds
//! each tool's JSON Schema from its row ([`super::schema`]) and the argument
//! parser reads the same rows, so a field the schema offers is a field the
//! parser accepts.

use serde_json::Value;

mod downloads;
mod fields;
mod frames;
mod live;
mod recordings;
mod table;

/// The tools, each a shape of action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolKind {
    Navigate,
    Inspect,
    Evaluate,
    Screenshot,
    Status,
    Close,
    RegisterFont,
    Click,
    Type,
    PressKey,
    Scroll,
    SelectOption,
    History,
    Accessibility,
    DialogPolicy,
    Wait,
    Capabilities,
    Reload,
    HttpRequest,
    HttpGet,
    HttpPost,
    HttpPut,
    HttpPatch,
    HttpDelete,
    HttpHead,
    HttpOptions,
    CookiesGet,
    CookiesSet,
    CookiesDelete,
    CookiesClear,
    StorageGet,
    StorageSet,
    StorageClear,
    StorageStateExport,
    StorageStateImport,
    NetworkLog,
    ConsoleMessages,
    Hover,
    Find,
    FrameList,
    FrameEvaluate,
    FrameHtml,
    PageHtml,
    RecordingStart,
    RecordingStop,
    RecordingStatus,
    RecordingDownload,
    Downloads,
    DownloadRead,
    LiveView,
    CdpEndpoint,
}

/// Names a tool also answers to without `tools/list` showing them: the names
/// this fleet used before it took Servo MCP's, so clients written against an
/// earlier release keep working. Nothing new goes here.
const ALIASES: &[(&str, ToolKind)] = &[("servo_type", ToolKind::Type)];

/// The tools outside the actions envelope: the session list and web search
/// take their arguments at the top level, as in Servo MCP.
pub(super) const LIST_TOOL: &str = "servo_session_list";
/// See [`LIST_TOOL`].
pub(super) const SEARCH_TOOL: &str = "servo_web_search";

/// Which sessions a tool's actions name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sessions {
    /// An existing session, or none to open a new tab (with a viewport).
    Any,
    /// An existing session only: the action acts on a page a tab shows.
    Existing,
    /// None: the action belongs to no session (HTTP requests).
    None,
}

/// One tool, as `tools/list` describes it and the parser checks it.
pub(super) struct Spec {
    pub(super) kind: ToolKind,
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    /// Which sessions an action may name.
    pub(super) sessions: Sessions,
    pub(super) read_only: bool,
    /// Repeating the call with the same arguments changes nothing more.
    pub(super) idempotent: bool,
    /// Can have effects outside the tab, so `--read-only` leaves it out
    /// ([`crate::read_only`] decides the same for each action).
    pub(super) outside: bool,
    pub(super) open_world: bool,
    pub(super) destructive: bool,
    /// Fields of one action beyond the common ones, and which are required.
    pub(super) fields: fn() -> (Value, Vec<&'static str>),
}

pub(super) use table::TOOLS;

impl ToolKind {
    /// This tool's row of [`TOOLS`].
    pub(super) fn spec(self) -> &'static Spec {
        &TOOLS[self as usize]
    }

    pub(super) fn name(self) -> &'static str {
        self.spec().name
    }

    /// Which sessions the tool's actions name.
    pub(super) fn sessions(self) -> Sessions {
        self.spec().sessions
    }

    /// Fields of one action beyond the common ones.
    pub(super) fn fields(self) -> (Value, Vec<&'static str>) {
        (self.spec().fields)()
    }

    /// The method an HTTP tool fixes; `None` for servo_http_request (the
    /// action names it) and for the browser tools.
    pub(super) fn http_method(self) -> Option<&'static str> {
        Some(match self {
            Self::HttpGet => "GET",
            Self::HttpPost => "POST",
            Self::HttpPut => "PUT",
            Self::HttpPatch => "PATCH",
            Self::HttpDelete => "DELETE",
            Self::HttpHead => "HEAD",
            Self::HttpOptions => "OPTIONS",
            _ => return None,
        })
    }

    pub(super) fn from_name(name: &str) -> Option<Self> {
        TOOLS
            .iter()
            .map(|t| (t.name, t.kind))
            .chain(ALIASES.iter().copied())
            .find(|(n, _)| *n == name)
            .map(|(_, kind)| kind)
    }
}

/// The annotations a [`state_tool`] row sets.
pub(super) struct Hints {
    read_only: bool,
    idempotent: bool,
    destructive: bool,
}

/// Reads the session's state.
pub(super) const READS: Hints = Hints {
    read_only: true,
    idempotent: true,
    destructive: false,
};
/// Sets values in it; setting them again changes nothing more.
pub(super) const SETS: Hints = Hints {
    read_only: false,
    idempotent: true,
    destructive: false,
};
/// Deletes from it.
pub(super) const DELETES: Hints = Hints {
    read_only: false,
    idempotent: true,
    destructive: true,
};
/// Acts on the page: each time is an event of its own.
pub(super) const ACTS: Hints = Hints {
    read_only: false,
    idempotent: false,
    destructive: false,
};

/// A row of [`TOOLS`] for a tool on a session's own state (cookies, storage,
/// logs, finding and hovering): nothing outside the tab, no open world.
const fn state_tool(
    kind: ToolKind,
    name: &'static str,
    description: &'static str,
    sessions: Sessions,
    hints: Hints,
    fields: fn() -> (Value, Vec<&'static str>),
) -> Spec {
    Spec {
        kind,
        name,
        description,
        sessions,
        read_only: hints.read_only,
        idempotent: hints.idempotent,
        outside: false,
        open_world: false,
        destructive: hints.destructive,
        fields,
    }
}

/// A row of [`TOOLS`] for an HTTP tool: no session, and out to the world.
const fn http_tool(
    kind: ToolKind,
    name: &'static str,
    description: &'static str,
    read_only: bool,
    idempotent: bool,
    destructive: bool,
    fields: fn() -> (Value, Vec<&'static str>),
) -> Spec {
    Spec {
        kind,
        name,
        description,
        sessions: Sessions::None,
        read_only,
        idempotent,
        // Only the safe methods stay inside; they are the read-only ones.
        outside: !read_only,
        open_world: true,
        destructive,
        fields,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_sits_in_the_row_its_kind_indexes() {
        for (i, spec) in TOOLS.iter().enumerate() {
            assert_eq!(spec.kind as usize, i, "{}", spec.name);
            assert_eq!(ToolKind::from_name(spec.name), Some(spec.kind));
        }
    }

    #[test]
    fn tool_names_are_unique_and_the_list_tool_is_not_an_action_tool() {
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
        assert_eq!(ToolKind::from_name(LIST_TOOL), None);
        for (alias, kind) in ALIASES {
            assert!(!names.contains(alias), "{alias} is listed as a tool");
            assert_eq!(ToolKind::from_name(alias), Some(*kind));
        }
    }
}
