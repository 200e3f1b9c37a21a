#!/usr/bin/env python3
"""Every link in the documents resolves: README.md, CONTRIBUTING.md, CHANGELOG.md and docs/**.md.

A relative link `[text](path#anchor)` must name a file or folder of the repository, and its
anchor a heading of that Markdown file (GitHub's slugs: lower case, spaces to hyphens, other
punctuation dropped). A path written as code or prose, `docs/….md`, must name a file too.
Links to other sites are not followed. Exits 1 naming each broken link.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
DOC_PATH = re.compile(r"(?<![\w/.-])(docs/[\w./-]+\.(?:md|json|sql|png))")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def documents():
    for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md"):
        if os.path.exists(os.path.join(ROOT, name)):
            yield name
    for folder, _, files in os.walk(os.path.join(ROOT, "docs")):
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.relpath(os.path.join(folder, name), ROOT)


def slug(heading):
    text = re.sub(r"`|\*\*|\*|_(?=\w)|(?<=\w)_", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


anchors_cache = {}


def anchors(path):
    if path not in anchors_cache:
        found, counts, fenced = set(), {}, False
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            for line in handle:
                if line.lstrip().startswith("```"):
                    fenced = not fenced
                    continue
                match = None if fenced else HEADING.match(line)
                if match:
                    base = slug(match.group(2))
                    n = counts.get(base, 0)
                    counts[base] = n + 1
                    found.add(base if n == 0 else f"{base}-{n}")
        anchors_cache[path] = found
    return anchors_cache[path]


def main():
    problems = []
    for document in documents():
        text = open(os.path.join(ROOT, document), encoding="utf-8").read()
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for number, line in enumerate(prose.split("\n"), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("mailto:"):
                    continue
                path, _, anchor = target.partition("#")
                resolved = document if not path else os.path.normpath(os.path.join(os.path.dirname(document), path))
                if not os.path.exists(os.path.join(ROOT, resolved)):
                    problems.append(f"{document}: link to '{target}': no file {resolved}")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    problems.append(f"{document}: link to '{target}': no heading '#{anchor}' in {resolved}")
        for path in DOC_PATH.findall(prose):
            if not os.path.exists(os.path.join(ROOT, path.rstrip("."))):
                problems.append(f"{document}: names {path}, which does not exist")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
