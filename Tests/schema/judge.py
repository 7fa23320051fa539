"""Judges each order of a corpus with the order JSON Schema, as an independent Draft 2020-12 validator.

    judge.py SCHEMA CORPUS

CORPUS holds one JSON object a line, {"name": ..., "order": ...}; for each, one line goes to standard output:
{"name": ..., "valid": true|false, "error": "<path>: <message>" of the first error found, or null}.
The schema itself is checked against the 2020-12 metaschema first. No format checker is used: the schema's
patterns carry every rule, so any 2020-12 validator reaches the same verdicts with format assertion on or off.
"""
import json
import sys

from jsonschema import Draft202012Validator


def main(schema_path, corpus_path):
    with open(schema_path, encoding="utf-8") as file:
        schema = json.load(file)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    with open(corpus_path, encoding="utf-8") as corpus:
        for line in corpus:
            case = json.loads(line)
            # The first error is enough for a verdict, and stops the walk early.
            error = next(validator.iter_errors(case["order"]), None)
            where = "/".join(str(part) for part in error.absolute_path) if error else None
            sys.stdout.write(json.dumps({
                "name": case["name"],
                "valid": error is None,
                "error": None if error is None else f"{where}: {error.message[:300]}",
            }) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
