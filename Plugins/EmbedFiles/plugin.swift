// The build step that puts a target's text files (.js, .css, .html) into its code: each file
// becomes a string constant of `EmbeddedFiles` in a Swift source generated at build time, so the
// files stay real files (highlighted, checked by `node --check`) while the binary stays one
// static executable that reads nothing at run time (no Bundle.module: the packaged binary runs
// in an empty chroot). SwiftPM reruns the step when one of the files changes.
import Foundation
import PackagePlugin

@main
struct EmbedFiles: BuildToolPlugin {
    static let embeddedExtensions: Set<String> = ["js", "css", "html"]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let inputs = target.sourceFiles
            .map(\.url)
            .filter { Self.embeddedExtensions.contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
        guard !inputs.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.map(\.lastPathComponent).joined(separator: ", ")) in \(target.name)",
                executable: try context.tool(named: "embed-files").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}
