#!/usr/bin/env python3
"""docs/ARCHITECTURE.md against the package: every target of Package.swift that is not a test
has a row in the module table, and the row's imports column is exactly what the target
depends on in Package.swift and what its sources `import` (package modules only; Foundation
and the toolchain's modules are not listed). The picture names every module of the table.

    scripts/check-architecture.py      # from the package's root; exit 1 naming each mismatch
"""
import os
import re
import sys

KINDS = r"(?:target|executableTarget|testTarget|systemLibrary|plugin)"


def package_targets(text):
    """name -> (kind, dependencies, sources folder) from Package.swift's targets."""
    targets = {}
    body = text[text.index("targets: ["):]
    starts = [m for m in re.finditer(r"\.(" + KINDS[3:-1] + r")\(\s*name:\s*\"([^\"]+)\"", body)]
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(body)
        chunk = body[match.end():end]
        kind, name = match.group(1), match.group(2)
        dependencies = re.search(r"dependencies:\s*\[([^\]]*)\]", chunk)
        path = re.search(r"path:\s*\"([^\"]+)\"", chunk)
        folder = path.group(1) if path else ("Plugins/" if kind == "plugin" else "Tests/" if kind == "testTarget" else "Sources/") + name
        targets[name] = (kind, set(re.findall(r"\"([^\"]+)\"", dependencies.group(1))) if dependencies else set(), folder)
    return targets


def source_imports(folder, modules):
    """The package modules the Swift files under `folder` import."""
    found = set()
    for root, _, files in os.walk(folder):
        for name in files:
            if not name.endswith(".swift"):
                continue
            for line in open(os.path.join(root, name), encoding="utf-8"):
                match = re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal)\s+)?import\s+(?:(?:struct|class|enum|func|protocol)\s+)?([A-Za-z_]\w*)", line)
                if match and match.group(1) in modules:
                    found.add(match.group(1))
    return found


def table_rows(text):
    """module -> set of imports from ARCHITECTURE.md's module table (`—` is none)."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not re.fullmatch(r"`[\w-]+`", cells[0]):
            continue
        imports = cells[3]
        names = set() if imports in ("—", "-", "") else {name.strip() for name in re.sub(r"\(.*?\)", "", imports).split(",") if name.strip()}
        rows[cells[0].strip("`")] = names
    return rows


def main():
    targets = package_targets(open("Package.swift", encoding="utf-8").read())
    architecture = open("docs/ARCHITECTURE.md", encoding="utf-8").read()
    rows = table_rows(architecture)
    picture = architecture[architecture.index("```"):architecture.index("```", architecture.index("```") + 3)]
    modules = {name for name, (kind, _, _) in targets.items()}
    problems = []
    for name, (kind, dependencies, folder) in sorted(targets.items()):
        if kind in ("testTarget", "systemLibrary") or folder.startswith("Tests/"):
            continue
        if name not in rows:
            problems.append(f"{name}: no row in docs/ARCHITECTURE.md's module table")
            continue
        if kind == "plugin":
            continue
        imports = source_imports(folder, modules)
        if rows[name] != dependencies:
            problems.append(f"{name}: the table's imports {sorted(rows[name])} are not Package.swift's dependencies {sorted(dependencies)}")
        if imports != dependencies:
            problems.append(f"{name}: its sources import {sorted(imports)}, Package.swift gives it {sorted(dependencies)}")
        if name not in picture and name != "BuildCommit":
            problems.append(f"{name}: not in docs/ARCHITECTURE.md's picture")
    for name in sorted(set(rows) - modules):
        problems.append(f"{name}: a row of docs/ARCHITECTURE.md's table, but no target of Package.swift")
    for problem in problems:
        print(f"check-architecture: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check-architecture: the module table matches Package.swift and the imports of {len(rows)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
