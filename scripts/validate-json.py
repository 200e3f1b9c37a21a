#!/usr/bin/env python3
"""Validates JSON output against the schemas in docs/schemas/ (draft 2020-12, the `jsonschema`
package from PyPI; scripts/python-env.sh makes the venv that has it).

Reads lines `SCHEMA<TAB>JSON` from standard input (SCHEMA is a file name in docs/schemas/
without `.schema.json`, JSON one document), checks every schema itself first, and prints one
line per document that does not validate, naming the schema, the line and the reason.
Exits 0 when all validate (printing `N documents valid`), 1 when one does not, 2 on bad input.

    printf 'event\t%s\n' "$(evtool log --json | head -1)" | .build/venv/bin/python scripts/validate-json.py
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SCHEMAS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "schemas"

schemas = {}
for path in sorted(SCHEMAS.glob("*.schema.json")):
    schema = json.loads(path.read_text())
    Draft202012Validator.check_schema(schema)
    schemas[path.name.removesuffix(".schema.json")] = schema
registry = Registry().with_resources(
    (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values())

failures = 0
count = 0
for number, line in enumerate(sys.stdin, start=1):
    line = line.rstrip("\n")
    if not line:
        continue
    name, _, text = line.partition("\t")
    if name not in schemas:
        print(f"line {number}: no schema named '{name}' in docs/schemas", file=sys.stderr)
        sys.exit(2)
    count += 1
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        print(f"line {number} ({name}): not JSON: {error}: {text[:200]}")
        failures += 1
        continue
    validator = Draft202012Validator(schemas[name], registry=registry)
    for error in validator.iter_errors(document):
        path = "/".join(str(part) for part in error.absolute_path) or "(top)"
        print(f"line {number} ({name}): {path}: {error.message[:300]}")
        failures += 1
        break
if failures:
    sys.exit(1)
print(f"{count} documents valid")
