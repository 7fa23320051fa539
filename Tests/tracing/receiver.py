"""An OpenTelemetry collector's OTLP/HTTP traces endpoint for the tests, on loopback.

    receiver.py PORT_FILE LOG_FILE
        Writes its port to PORT_FILE once it listens. Answers every POST with 200 and an empty
        ExportTraceServiceResponse, and appends one JSON line per POST to LOG_FILE: its path, its content type, and
        the spans the body holds, decoded with OpenTelemetry's own protobuf messages (`opentelemetry-proto`): each
        span's name, kind, trace id and attributes, with the resource's attributes. A body that does not decode is
        logged with the error instead.
"""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

lock = threading.Lock()


def value(any_value):
    """An AnyValue as plain JSON: its one set field."""
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind in ("array_value", "kvlist_value", "bytes_value"):
        return str(getattr(any_value, kind))
    return getattr(any_value, kind)


def attributes(key_values):
    return {kv.key: value(kv.value) for kv in key_values}


def decode(body):
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append({
                    "name": span.name,
                    "kind": span.kind,
                    "traceId": span.trace_id.hex(),
                    "attributes": attributes(span.attributes),
                    "resource": resource,
                })
    return spans


def serve(port_file, log_file):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            entry = {"path": self.path, "contentType": self.headers.get("content-type"), "bytes": len(body)}
            try:
                entry["spans"] = decode(body)
            except Exception as error:  # noqa: BLE001 - the test reports whatever failed to decode
                entry["error"] = str(error)
            with lock:
                with open(log_file, "a") as log:
                    log.write(json.dumps(entry) + "\n")
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
