#!/usr/bin/python3
"""Checks that the usage examples in headers' file comments name functions that exist.

A header's file comment (style.md: "a file comment at the top of each header with a short usage
example") goes stale silently when a function is renamed or removed. This reads the example lines
of every header's top comment (comment lines indented by three spaces or more after "//") and
requires each CamelCase name called there, `Name(`, to appear in code (not comments) somewhere in
the repository's C++ sources or .proto files. Names qualified by a library namespace (absl::,
std::, grpc::, google::, testing::) are the library's, not verdict's, and macros (all capitals)
are not looked up either.

    scripts/check-header-examples.py            # the repository this script is in
    scripts/check-header-examples.py ROOT       # another tree (its self-test uses this)

Exits 1 and names each header, line and missing name when one is stale.
"""

import os
import re
import sys

SOURCE_DIRS = ("app", "bench", "cli", "common", "crypto", "decision", "fuzz", "proto", "runtime",
               "server", "store", "tests")
CALLED = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*::)*)([A-Z]\w*)\s*\(")
LIBRARY_NAMESPACES = ("absl::", "std::", "grpc::", "google::", "testing::")


def source_files(root):
    for top in SOURCE_DIRS:
        for directory, subdirectories, files in os.walk(os.path.join(root, top)):
            subdirectories[:] = [d for d in subdirectories if not d.startswith("bazel-")]
            for name in files:
                if name.endswith((".h", ".cc", ".proto")):
                    yield os.path.join(directory, name)


def code_names(paths):
    """Every identifier that appears outside // comments."""
    names = set()
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                code = line.split("//", 1)[0]
                names.update(re.findall(r"[A-Za-z_]\w*", code))
    return names


def example_lines(path):
    """(line number, text) of the example lines of the header's top comment."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, start=1):
            if not line.startswith("//"):
                return
            if line.startswith("//   "):
                yield number, line[2:]


def stale_examples(root):
    paths = list(source_files(root))
    known = code_names(paths)
    problems = []
    for path in sorted(p for p in paths if p.endswith(".h")):
        for number, text in example_lines(path):
            for qualifier, name in CALLED.findall(text):
                if qualifier.startswith(LIBRARY_NAMESPACES) or name in known or name.isupper():
                    continue  # a library's, defined, or a macro (LOG, EXPECT_TRUE)
                problems.append(f"{os.path.relpath(path, root)}:{number}: the example calls "
                                f"{qualifier}{name}, which no source defines")
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))
    problems = stale_examples(root)
    for problem in problems:
        print(problem)
    print(f"header examples: {len(problems)} stale name(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
