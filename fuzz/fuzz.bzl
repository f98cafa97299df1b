"""verdict_fuzz_target: one libFuzzer target and the regression test of its seed corpus."""

def verdict_fuzz_target(name, srcs, deps):
    """A cc_test named `name` over fuzz/corpus/<name>/.

    Built normally (gcc), it runs every corpus input once through fuzz/corpus_runner.cc. Built
    with --config=fuzz (clang, libFuzzer, ASan and UBSan), it is the fuzzer itself:
    scripts/test.d/fuzz.sh runs it on the same corpus for a bounded time.
    """
    corpus = "corpus/" + name
    native.cc_test(
        name = name,
        size = "small",
        srcs = srcs,
        args = ["fuzz/" + corpus],
        data = native.glob([corpus + "/**"]),
        linkopts = select({
            ":libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + [":fuzz_check"] + select({
            ":libfuzzer": [],
            "//conditions:default": [":corpus_runner"],
        }),
    )
