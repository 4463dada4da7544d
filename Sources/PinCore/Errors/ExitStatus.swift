/// How a `pins` process ends (sysexits.h), documented in the README ("Exit codes") and each
/// command's `--help`: cron and systemd read these.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    /// EX_USAGE.
    public static let usage: Int32 = 64
    /// EX_DATAERR: a file could not be read to its end (import-places).
    public static let dataError: Int32 = 65
    /// EX_NOINPUT: the folder to import is missing, empty or lost most of its files.
    public static let noInput: Int32 = 66
    /// EX_CANTCREAT: an output file cannot be made there (it is the database or one of its files).
    public static let cantCreate: Int32 = 73
    /// EX_IOERR: the run completed, but some folders or files could not be read.
    public static let ioError: Int32 = 74
    /// EX_TEMPFAIL: another import or a repair holds the database; cron may try again later.
    public static let busy: Int32 = 75
}

/// The one error protocol of every module: an error that says what went wrong (its
/// description, printed after "pins COMMAND: ") and which exit code it means. The CLI maps
/// errors to exit codes in one place (`main`), by this protocol; an error that does not adopt
/// it ends the process with 1.
public protocol ExitStatusError: Error, CustomStringConvertible {
    var exitStatus: Int32 { get }
}
