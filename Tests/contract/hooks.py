"""Schemathesis hooks for openapi.json (SCHEMATHESIS_HOOKS; see server.sh).

Newline-delimited JSON (application/x-ndjson: the import's body and answer, the export) is no media type schemathesis
knows. The document describes such a body as the array of its lines' values; these write a generated array one value
per line, and read an answer back into the array of its lines, so that each line is checked against the schema.
"""

import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def write_ndjson(ctx, value):
    values = value if isinstance(value, list) else [value]
    return "".join(json.dumps(item) + "\n" for item in values).encode()


@schemathesis.deserializer("application/x-ndjson")
def read_ndjson(ctx, response):
    return [json.loads(line) for line in response.content.splitlines() if line.strip()]
