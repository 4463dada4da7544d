/// Where a report writer puts its text, piece by piece (a buffered file descriptor in the
/// command line, a string in tests). In PinCore because the photo import's report writers
/// (PinImport) and import-places' (PinPlaces) both write to it.
public protocol TextSink: AnyObject {
    func write(_ text: String)
}
