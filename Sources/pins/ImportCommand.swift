import Foundation

let importSpec = CommandSpec(name: "import", summary: "Import a folder of photos as pins (one per visited place).", usage: "import DIR", options: [], details: "")
func runImport(_ args: ParsedArguments) throws { throw CommandFailure("not yet") }
let inspectSpec = CommandSpec(name: "inspect", summary: "Show what pins reads from photos: position, time and their sources.", usage: "inspect PATH...", options: [], details: "")
func runInspect(_ args: ParsedArguments) throws { throw CommandFailure("not yet") }
