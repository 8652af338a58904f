#!/bin/sh
# Generates the Python stubs from forgeflow.proto with protoc, then submits a job over gRPC and watches it finish.
# Needs (Debian): python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc.
#   FORGEFLOW_GRPC_ADDR=127.0.0.1:50051 FORGEFLOW_TOKEN=... [FORGEFLOW_GRPC_CA=cert.pem] examples/python-grpc/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
proto="$here/../../adapters-grpc/src/main/proto"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
protoc -I "$proto" -I /usr/include --python_out="$out" --grpc_out="$out" \
  --plugin=protoc-gen-grpc="$(command -v grpc_python_plugin)" "$proto/forgeflow/v1/forgeflow.proto"
touch "$out/forgeflow/__init__.py" "$out/forgeflow/v1/__init__.py"
PYTHONPATH="$out" exec "${PYTHON:-/usr/bin/python3}" "$here/submit_and_watch.py"
