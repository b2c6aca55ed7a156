//! `std::io::Error` as a tool execution error, by its [`io::ErrorKind`]: a tool that reads
//! files or talks to a socket can `?` the error and the model gets a kind it can act on.

use std::io;

use crate::wire::envelope::{ErrorKind, ToolError};

/// An I/O error as a [`ToolError`], chosen by its [`io::ErrorKind`] (`?` on an `io::Result`
/// in a tool returning `Result<T, ToolError>`, or a tool returning `io::Result<T>`):
///
/// | `io::ErrorKind` | `errorKind` | message (then the error's text in parentheses) |
/// |---|---|---|
/// | `NotFound` | `not_found` | `Not found.` |
/// | `AlreadyExists` | `conflict` | `It exists already.` |
/// | `IsADirectory`, `NotADirectory`, `DirectoryNotEmpty`, `InvalidData` | `conflict` | `The file system does not allow this here.` (`InvalidData`: `The data read is not what was expected.`) |
/// | `InvalidInput`, `InvalidFilename`, `FileTooLarge`, `ArgumentListTooLong` | `validation_error` | `The call names something this system cannot take.` |
/// | `PermissionDenied`, `ReadOnlyFilesystem` | `policy_blocked` | reason `the operating system denied access` |
/// | `QuotaExceeded` | `policy_blocked` | reason `a quota of the operating system is exceeded` |
/// | `TimedOut` | `upstream_timeout` | `The operation timed out.` |
/// | `ConnectionRefused`, `HostUnreachable`, `NetworkUnreachable`, `NetworkDown`, `AddrNotAvailable`, `WouldBlock`, `ResourceBusy`, `Interrupted` | `upstream_unavailable`, `retrySafe: true` | `Unavailable; nothing was done.` |
/// | `ConnectionReset`, `ConnectionAborted`, `BrokenPipe`, `NotConnected`, `UnexpectedEof`, `WriteZero` | `upstream_unavailable`, `retrySafe: false` | `The connection broke; what was done is unknown.` |
/// | any other (`Other`, `Unsupported`, `StorageFull`, `OutOfMemory`, …) | `internal` | only a `correlationId`; the error is logged under it |
///
/// The error's own text (`No such file or directory (os error 2)`) names no path: a tool
/// that knows which file says so itself, with [`ResultExt`](crate::ResultExt) where the
/// error happens (`.not_found(format!("No file `{path}`."))?`) or
/// [`or_tool_error_with`](crate::ResultExt::or_tool_error_with) to choose by kind.
///
/// "Outside what this server may touch" (a path outside its allowed directories, a host
/// not on its list) is a policy of the server's, not an error of the system:
/// `ToolError::policy_blocked("outside the allowed directories")` (status `blocked`:
/// the model stops rather than works around it), not `permission_denied`, which names an
/// OAuth scope the caller lacks.
impl From<io::Error> for ToolError {
    fn from(error: io::Error) -> Self {
        use io::ErrorKind as K;
        let with = |sentence: &str| format!("{sentence} ({error})");
        match error.kind() {
            K::NotFound => ToolError::not_found(with("Not found.")),
            K::AlreadyExists => ToolError::conflict(with("It exists already.")),
            K::IsADirectory | K::NotADirectory | K::DirectoryNotEmpty => {
                ToolError::conflict(with("The file system does not allow this here."))
            }
            K::InvalidData => ToolError::conflict(with("The data read is not what was expected.")),
            K::InvalidInput | K::InvalidFilename | K::FileTooLarge | K::ArgumentListTooLong => {
                ToolError::of_kind(
                    ErrorKind::ValidationError,
                    with("The call names something this system cannot take."),
                )
            }
            K::PermissionDenied | K::ReadOnlyFilesystem => {
                ToolError::policy_blocked(format!("the operating system denied access ({error})"))
            }
            K::QuotaExceeded => ToolError::policy_blocked(format!(
                "a quota of the operating system is exceeded ({error})"
            )),
            K::TimedOut => {
                ToolError::of_kind(ErrorKind::UpstreamTimeout, with("The operation timed out."))
            }
            K::ConnectionRefused
            | K::HostUnreachable
            | K::NetworkUnreachable
            | K::NetworkDown
            | K::AddrNotAvailable
            | K::WouldBlock
            | K::ResourceBusy
            | K::Interrupted => {
                ToolError::upstream_unavailable(with("Unavailable; nothing was done."), true)
            }
            K::ConnectionReset
            | K::ConnectionAborted
            | K::BrokenPipe
            | K::NotConnected
            | K::UnexpectedEof
            | K::WriteZero => ToolError::upstream_unavailable(
                with("The connection broke; what was done is unknown."),
                false,
            ),
            _ => ToolError::internal_logged(format_args!("I/O error: {error}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(kind: io::ErrorKind) -> (ErrorKind, bool, String) {
        let error = ToolError::from(io::Error::new(kind, "boom"));
        (error.error_kind, error.retry_safe, error.message.clone())
    }

    #[test]
    fn each_io_kind_has_its_error_kind() {
        use io::ErrorKind as K;
        let table = [
            (K::NotFound, ErrorKind::NotFound),
            (K::AlreadyExists, ErrorKind::Conflict),
            (K::IsADirectory, ErrorKind::Conflict),
            (K::InvalidData, ErrorKind::Conflict),
            (K::InvalidInput, ErrorKind::ValidationError),
            (K::PermissionDenied, ErrorKind::PolicyBlocked),
            (K::QuotaExceeded, ErrorKind::PolicyBlocked),
            (K::TimedOut, ErrorKind::UpstreamTimeout),
            (K::ConnectionRefused, ErrorKind::UpstreamUnavailable),
            (K::BrokenPipe, ErrorKind::UpstreamUnavailable),
            (K::Other, ErrorKind::Internal),
            (K::StorageFull, ErrorKind::Internal),
        ];
        for (io_kind, kind) in table {
            assert_eq!(kind_of(io_kind).0, kind, "{io_kind:?}");
        }
        assert_eq!(
            kind_of(K::NotFound).2,
            "Not found. (boom)",
            "the sentence, then the error's text"
        );
        // Refused before anything happened: safe to retry; broken midway: not.
        assert!(kind_of(K::ConnectionRefused).1);
        assert!(!kind_of(K::ConnectionReset).1);
    }
}
