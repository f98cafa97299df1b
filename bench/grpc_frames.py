#!/usr/bin/python3
"""Writes one gRPC request frame for h2load and checks, with a real gRPC client, that the
server under test gives the expected answer to exactly that frame.

h2load sends the same body on every request and reads no gRPC status, so the benchmark scripts
first check the answer here, then compare h2load's received data bytes with
`calls x response frame size` to see that every call got that same answer.

  grpc_frames.py verdict --target 127.0.0.1:50051 --agent agt_bench_0000042 \\
      --resource docs:42:report --frame /tmp/authorize.frame
  grpc_frames.py cerbos --target 127.0.0.1:3593 --frame /tmp/check.frame

Prints `path=/verdict.v1.DecisionService/Authorize response_frame_bytes=N`. Exits 1 when the
answer is not the expected one. Runs with Debian's python3-grpcio and python3-grpc-tools.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def generate_stubs(proto_root, proto, out):
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_root}",
                    f"--python_out={out}", proto], check=True)


def frame(message_bytes):
    return struct.pack(">BI", 0, len(message_bytes)) + message_bytes


def call(target, path, request_bytes):
    with grpc.insecure_channel(target) as channel:
        method = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
        return method(request_bytes, timeout=10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("server", choices=["verdict", "cerbos"])
    parser.add_argument("--target", required=True, help="host:port or unix:PATH")
    parser.add_argument("--frame", required=True, help="where to write the request frame")
    parser.add_argument("--agent", default="agt_demo_reader")
    parser.add_argument("--action", default="read")
    parser.add_argument("--resource", default="docs:guide:1")
    parser.add_argument("--expect", default="ALLOW", choices=["ALLOW", "DENY"])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as out:
        sys.path.insert(0, out)
        if args.server == "verdict":
            generate_stubs(os.path.join(REPO, "proto"), "verdict/v1/decision.proto", out)
            from verdict.v1 import decision_pb2 as pb
            path = "/verdict.v1.DecisionService/Authorize"
            request = pb.AuthorizeRequest(action=args.action, resource=args.resource)
            request.subject.agent_id = args.agent
            request_bytes = request.SerializeToString()
            response_bytes = call(args.target, path, request_bytes)
            answer = pb.AuthorizeResponse.FromString(response_bytes)
            # VERDICT_ALLOW -> ALLOW: enum values carry their type's name (buf's ENUM_VALUE_PREFIX).
            got = pb.Verdict.Name(answer.verdict).removeprefix("VERDICT_")
        else:
            generate_stubs(os.path.join(HERE, "peers"), "cerbos_wire.proto", out)
            import cerbos_wire_pb2 as pb
            path = "/cerbos.svc.v1.CerbosService/CheckResources"
            request = pb.CheckResourcesRequest(request_id="bench")
            request.principal.id = args.agent
            request.principal.roles.append("reader")
            entry = request.resources.add()
            entry.actions.append(args.action)
            kind, _, rest = args.resource.partition(":")
            entry.resource.kind = kind
            entry.resource.id = rest or "1"
            request_bytes = request.SerializeToString()
            response_bytes = call(args.target, path, request_bytes)
            answer = pb.CheckResourcesResponse.FromString(response_bytes)
            effect = answer.results[0].actions.get(args.action, 0) if answer.results else 0
            got = {pb.EFFECT_ALLOW: "ALLOW"}.get(effect, "DENY")

    with open(args.frame, "wb") as f:
        f.write(frame(request_bytes))
    if got != args.expect:
        print(f"{args.server} at {args.target} answered {got}, expected {args.expect}: {answer}",
              file=sys.stderr)
        return 1
    print(f"path={path} response_frame_bytes={len(frame(response_bytes))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
