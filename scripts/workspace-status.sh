#!/usr/bin/env bash
# Bazel's --workspace_status_command (.bazelrc): the commit verdict is built from, stamped into
# `verdictd --version` and `verdict version` by //common:build_info. A tree with uncommitted
# changes gets "-dirty"; a tree without git (an unpacked tarball) says "unknown".
# STABLE_ keys: a new commit rebuilds the stamp, so a binary never reports an older commit.
commit=unknown
if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  if [[ $commit != unknown ]] && ! git diff-index --quiet HEAD -- 2>/dev/null; then
    commit="$commit-dirty"
  fi
fi
echo "STABLE_VERDICT_COMMIT $commit"
