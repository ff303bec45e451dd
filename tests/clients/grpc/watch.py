"""Watches one session with fleet.v1.Browser/Watch, from stubs generated here
from the project's proto files, and prints each event as a JSON line.

Usage: watch.py PROTO_DIR GATEWAY_HOST:PORT API_KEY SESSION_ID

It prints `watching` once the gateway has answered the call (the
subscription is in place), then one line per event, and exits when the
stream ends (the session was closed) or fails (with the status on stderr).
"""

import importlib
import json
import sys
import tempfile

from grpc_tools import protoc
import grpc


def stubs(proto_dir, out):
    args = [
        "protoc",
        f"-I{proto_dir}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"{proto_dir}/fleet/v1/browser.proto",
    ]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    sys.path.insert(0, out)
    return (
        importlib.import_module("fleet.v1.browser_pb2"),
        importlib.import_module("fleet.v1.browser_pb2_grpc"),
    )


def main():
    proto_dir, target, key, session = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as out:
        pb, rpc = stubs(proto_dir, out)
        channel = grpc.insecure_channel(target)
        browser = rpc.BrowserStub(channel)
        call = browser.Watch(
            pb.WatchRequest(session_id=session),
            metadata=[("authorization", f"Bearer {key}")],
        )
        call.initial_metadata()
        print("watching", flush=True)
        try:
            for event in call:
                kind = event.WhichOneof("kind")
                body = getattr(event, kind)
                fields = {f.name: v for f, v in body.ListFields()}
                print(
                    json.dumps({"session": event.session_id, "kind": kind, **fields}),
                    flush=True,
                )
        except grpc.RpcError as e:
            sys.exit(f"{e.code().name}: {e.details()}")


if __name__ == "__main__":
    main()
