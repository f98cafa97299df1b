"""Generates C++ (and gRPC) code from .proto files with Debian's protoc, offline.

The native proto_library needs @com_google_protobuf, a download; this macro runs the system
protoc and grpc_cpp_plugin instead. Every .proto lives under //proto and imports by its path
relative to proto/ (for example "verdict/v1/decision.proto").
"""

def cc_proto_grpc_library(name, srcs, deps = [], proto_deps = [], grpc = True, visibility = None):
    """A cc_library with the messages (and services, when grpc) of srcs.

    Args:
      name: the cc_library's name.
      srcs: .proto files in this package, paths relative to proto/.
      deps: other cc_proto_grpc_library targets whose messages srcs import.
      proto_deps: the .proto files of those deps (protoc must read them).
      grpc: also generate the gRPC service stubs.
      visibility: of the cc_library.
    """
    outs = []
    for src in srcs:
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
        if grpc:
            outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]
    grpc_flags = ""
    if grpc:
        grpc_flags = "--grpc_out=$(GENDIR)/proto --plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin "
    native.genrule(
        name = name + "_gen",
        srcs = srcs + proto_deps,
        outs = outs,
        cmd = ("/usr/bin/protoc -Iproto -I/usr/include --cpp_out=$(GENDIR)/proto " +
               grpc_flags + " ".join(["proto/" + s for s in srcs])),
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        includes = ["."],
        deps = deps + ["@system//:protobuf"] + (["@system//:grpc"] if grpc else []),
        visibility = visibility,
    )
