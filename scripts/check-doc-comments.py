#!/usr/bin/env python3
"""Lists every `public` or `open` declaration under Sources/ that has no doc comment (`///`
or `/** */` right above it, attributes between allowed) and exits 1 when there is one.

A declaration that implements a requirement of a protocol its type conforms to (a protocol
declared in Sources/, e.g. a store's `append` of `EventStore`) takes the requirement's doc
comment, as DocC shows it; so do the witnesses of the standard library's `description`,
`debugDescription`, `errorDescription`, `init(from:)`, `encode(to:)`, `hash(into:)`, `==`
and `<`. `public import` lines are not declarations.

    scripts/check-doc-comments.py [FOLDER]     # default Sources, from the package's root
"""
import os
import re
import sys

STANDARD_WITNESS = re.compile(
    r"(var (description|debugDescription|errorDescription)\b|init\(from decoder|func encode\(to encoder|func hash\(into|static func (==|<) )")
TYPE_HEADER = re.compile(
    r"^(?:(?:@\w+(?:\([^)]*\))?|public|open|final|internal|package|indirect|private|fileprivate)\s+)*"
    r"(protocol|extension|struct|class|enum|actor)\s+([A-Za-z_][\w.]*)(?:<[^>]*>)?\s*(?::\s*([^{]*?))?\s*(?:where [^{]*)?\{?\s*$")
PUBLIC = re.compile(r"^((?:@\w+(?:\([^)]*\))?\s+)*)(public|open)\s+(?![=+\-*/.(\[])(.*)$")
MEMBER = re.compile(
    r"(?:(?:static|class|final|override|mutating|nonmutating|nonisolated|convenience|required|lazy|indirect|"
    r"(?:private|fileprivate|internal|package)\(set\))\s+)*"
    r"(func|var|let|init|subscript|case|typealias|associatedtype|struct|enum|class|protocol|actor)\b\s*([^\s(:<=]*)")


def member_name(declaration):
    """The name a declaration declares (`init` for every initializer), or None."""
    match = MEMBER.match(declaration)
    if not match:
        return None
    return "init" if match.group(1) == "init" else match.group(2)


def scan(path, conformances, requirements):
    """Each code line of `path` with the types it is nested in; records the conformances every
    type or extension header declares and the requirements every protocol declares."""
    lines = open(path, encoding="utf-8").read().split("\n")
    stack = []   # (indentation, kind, name) of the enclosing types and extensions
    rows = []
    for index, line in enumerate(lines):
        text = line.strip()
        indentation = len(line) - len(line.lstrip())
        if not text or text.startswith("//") or text.startswith("*"):
            continue
        if text.startswith("}"):
            while stack and indentation < stack[-1][0]:
                stack.pop()
            if stack and indentation == stack[-1][0]:
                stack.pop()
            continue
        while stack and indentation <= stack[-1][0]:
            stack.pop()
        rows.append((index, text, list(stack)))
        header = TYPE_HEADER.match(text)
        if header:
            kind, name, inherited = header.groups()
            name = name.split(".")[-1]
            names = [part.strip().split("<")[0].split(".")[-1] for part in (inherited or "").split(",") if part.strip()]
            conformances.setdefault(name, set()).update(names)
            if kind == "protocol":
                requirements.setdefault(name, set())
            if text.endswith("{") and not text.endswith("{}"):
                stack.append((indentation, kind, name))
        elif stack and stack[-1][1] == "protocol":
            name = member_name(re.sub(r"^(@\w+\s+)*", "", text))
            if name:
                requirements[stack[-1][2]].add(name)
    return lines, rows


def inherited_requirements(type_name, conformances, requirements, seen=None):
    """Every requirement of the protocols `type_name` conforms to, through refinements."""
    seen = set() if seen is None else seen
    found = set()
    for protocol in conformances.get(type_name, ()):
        if protocol in seen:
            continue
        seen.add(protocol)
        if protocol in requirements:
            found |= requirements[protocol]
            found |= inherited_requirements(protocol, conformances, requirements, seen)
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "Sources"
    paths = sorted(os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names if name.endswith(".swift"))
    conformances, requirements = {}, {}
    scanned = [(path,) + scan(path, conformances, requirements) for path in paths]
    missing = []
    for path, lines, rows in scanned:
        for index, text, stack in rows:
            match = PUBLIC.match(text)
            if not match or match.group(3).startswith("import ") or STANDARD_WITNESS.search(text):
                continue
            above = index - 1
            while above >= 0 and lines[above].strip().startswith("@"):
                above -= 1
            previous = lines[above].strip() if above >= 0 else ""
            if previous.startswith("///") or previous.endswith("*/"):
                continue
            name = member_name(match.group(3))
            if stack and stack[-1][1] != "protocol" and name in inherited_requirements(stack[-1][2], conformances, requirements):
                continue
            missing.append(f"{path}:{index + 1}: {text}")
    for line in missing:
        print(line)
    if missing:
        print(f"check-doc-comments: {len(missing)} public declarations without a doc comment", file=sys.stderr)
        return 1
    print(f"check-doc-comments: every public declaration in {len(paths)} files under {root}/ has a doc comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
