import Foundation
import Testing

/// The module map (docs/modules.md) against Package.swift, and every import in Sources/ against its
/// module's declared dependencies: the house as a newcomer reads it is the house that builds.
@Suite("The module map in docs/modules.md is the package's")
struct ModuleMapTests {
    /// A target as Package.swift declares it.
    struct Target {
        var name: String
        var kind: String
        var path: String
        var dependencies: Set<String>
    }

    /// The targets of Package.swift, read from its text: each `.target(name:`, `.executableTarget(`,
    /// `.systemLibrary(` or `.testTarget(` with its `path:` (or the default) and the names in its
    /// `dependencies:` list (a `.product(name:`, whatever its condition, counts as its name).
    static func packageTargets() throws -> [Target] {
        let manifest = try String(contentsOf: RenderCommandTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [Target] = []
        for match in manifest.matches(of: /\.(target|executableTarget|systemLibrary|testTarget)\(name: "([^"]+)"/) {
            // The call's arguments: up to the parenthesis that closes it.
            var depth = 1
            var end = match.range.upperBound
            while depth > 0, end < manifest.endIndex {
                if manifest[end] == "(" { depth += 1 } else if manifest[end] == ")" { depth -= 1 }
                end = manifest.index(after: end)
            }
            let arguments = manifest[match.range.upperBound..<end]
            var dependencies: Set<String> = []
            let named = arguments.replacing(/\.product\(name: "([^"]+)"(?:[^()]|\([^()]*\))*\)/) { "\"\($0.1)\"" }
            if let list = named.firstMatch(of: /dependencies: \[([^\]]*)\]/)?.1 {
                dependencies = Set(list.matches(of: /"([^"]+)"/).map { String($0.1) })
            }
            let kind = String(match.1), name = String(match.2)
            let path = arguments.firstMatch(of: /path: "([^"]+)"/).map { String($0.1) } ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            targets.append(Target(name: name, kind: kind, path: path, dependencies: dependencies))
        }
        return targets
    }

    /// The rows of the module table (docs/modules.md): layer, module and what it depends on, in order.
    static func readmeRows() throws -> (picture: String, rows: [(layer: String, module: String, dependencies: Set<String>)]) {
        let readme = try String(contentsOf: RenderCommandTests.root.appendingPathComponent("docs/modules.md"), encoding: .utf8)
        let section = try #require(readme.firstRange(of: "## The modules\n").map { readme[$0.upperBound...] })
        let body = section[..<(section.firstRange(of: "\n## ")?.lowerBound ?? section.endIndex)]
        let picture = try #require(body.firstMatch(of: /```\n([\s\S]*?)```/)?.1)
        var rows: [(String, String, Set<String>)] = []
        for row in body.matches(of: /\n\| ([^|`]+) \| `([^`]+)` \| [^|]* \| ([^|]*) \|/) {
            let dependencies = row.3.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "—" }
            rows.append((row.1.trimmingCharacters(in: .whitespaces), String(row.2), Set(dependencies)))
        }
        return (String(picture), rows)
    }

    @Test("every module outside Tests/ has a row: its layer and its dependencies as Package.swift has them, none from a layer above; the picture names each")
    func readmeTable() throws {
        let modules = try Self.packageTargets().filter { !$0.path.hasPrefix("Tests/") }
        let (picture, rows) = try Self.readmeRows()
        #expect(Set(rows.map(\.module)) == Set(modules.map(\.name)), "docs/modules.md rows against Package.swift targets")
        #expect(rows.count == Set(rows.map(\.module)).count, "a module with two rows")
        var layers: [String] = []
        for row in rows where layers.last != row.layer {
            #expect(!layers.contains(row.layer), "layer \(row.layer) is split in two")
            layers.append(row.layer)
        }
        let layerOf = Dictionary(rows.map { ($0.module, layers.firstIndex(of: $0.layer)!) }) { a, _ in a }
        for module in modules {
            guard let row = rows.first(where: { $0.module == module.name }) else { continue }
            #expect(row.dependencies == module.dependencies, "\(module.name): docs/modules.md says \(row.dependencies.sorted()), Package.swift \(module.dependencies.sorted())")
            for dependency in module.dependencies {
                guard let below = layerOf[dependency] else { continue }   // a package's product (ArgumentParser)
                #expect(below >= layerOf[module.name]!, "\(module.name) (\(row.layer)) depends on \(dependency) (\(layers[below])), a layer above it")
            }
            #expect(picture.contains(module.name), "the picture does not name \(module.name)")
        }
    }

    @Test("every import in Sources/ and Examples/ of one of the package's modules is a dependency its target declares, and every declared dependency of a Swift module is imported")
    func importsAreDeclared() throws {
        let targets = try Self.packageTargets()
        let names = Set(targets.map(\.name)).union(["ArgumentParser"])
        let files = FileManager.default
        for target in targets where !target.path.hasPrefix("Tests/") && target.kind != "systemLibrary" {
            let folder = RenderCommandTests.root.appendingPathComponent(target.path)
            let swiftFiles = (files.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }
            guard !swiftFiles.isEmpty else { continue }   // a C target
            var imported: Set<String> = []
            for file in swiftFiles {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.matches(of: /(?m)^(?:@_exported |@testable |public |internal |package )?import ([A-Za-z_][A-Za-z0-9_]*)/) where names.contains(String(line.1)) {
                    imported.insert(String(line.1))
                }
            }
            #expect(imported.subtracting(target.dependencies).isEmpty, "\(target.name) imports \(imported.subtracting(target.dependencies).sorted()) without declaring them")
            let executableNames = Set(targets.filter { $0.kind == "executableTarget" }.map(\.name))
            let unused = target.dependencies.subtracting(imported).subtracting(executableNames)
            #expect(unused.isEmpty, "\(target.name) declares \(unused.sorted()) and imports none of them")
        }
    }

    @Test("every public error type of the modules the library is made of is a Fault, so the C API maps its kind to a status code without guessing")
    func errorsSayTheirKind() throws {
        let targets = try Self.packageTargets()
        let byName = Dictionary(targets.map { ($0.name, $0) }) { a, _ in a }
        var library: Set<String> = [], next = ["Pianola"]
        while let name = next.popLast() {
            guard library.insert(name).inserted, let target = byName[name] else { continue }
            next += target.dependencies
        }
        var checked = 0
        for name in library.sorted() {
            guard let target = byName[name], target.kind != "systemLibrary" else { continue }
            let folder = RenderCommandTests.root.appendingPathComponent(target.path)
            for file in (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []) where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for declaration in text.matches(of: /(?m)^public (?:struct|enum|final class|class) (\w+): ([^{]*)\{/) {
                    let conformances = declaration.2.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    guard conformances.contains("Error") || conformances.contains("Fault") else { continue }
                    checked += 1
                    #expect(conformances.contains("Fault"), "\(name)/\(file): \(declaration.1) is an Error but not a Fault")
                }
            }
        }
        #expect(checked >= 10, "only \(checked) public error types found")
    }
}
