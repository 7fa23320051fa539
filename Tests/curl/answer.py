#!/usr/bin/env python3
"""An HTTP/1.1 server on loopback for the libcurl layer's tests, Python's standard library only.

    answer.py PORT_FILE
        Answers every request to /STATUS/BYTES with STATUS and a body of BYTES bytes ("x" each), keeping the
        connection open; writes the port it listens on to PORT_FILE once it listens. POST bodies are read and dropped.
"""
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self):
        length = int(self.headers.get("content-length", "0"))
        if length:
            self.rfile.read(length)
        parts = self.path.strip("/").split("/")
        status, size = (int(parts[0]), int(parts[1])) if len(parts) == 2 else (404, 0)
        self.send_response(status)
        self.send_header("content-length", str(size))
        self.end_headers()
        self.wfile.write(b"x" * size)

    do_GET = answer
    do_POST = answer


def main(port_file):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
