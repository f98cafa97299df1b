#include "decision/permission_index.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "decision/resource_match.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

Permission Allow(std::string id, std::string resource, std::vector<std::string> actions) {
  return Permission{.id = std::move(id),
                    .agent_id = "agt_1",
                    .resource = std::move(resource),
                    .actions = std::move(actions)};
}

std::vector<std::string> IdsOf(const std::vector<Permission>& permissions) {
  std::vector<std::string> ids;
  for (const Permission& p : permissions) ids.push_back(p.id);
  return ids;
}

TEST(LiteralHeadOf, AColonPatternsHeadIsItsSegmentsBeforeTheFirstStarSegment) {
  EXPECT_EQ(LiteralHeadOf("docs:12:*"), "docs:12");
  EXPECT_EQ(LiteralHeadOf("docs:*:12"), "docs");
  EXPECT_EQ(LiteralHeadOf("*:docs"), "");
  EXPECT_EQ(LiteralHeadOf("*"), "");
  EXPECT_EQ(LiteralHeadOf("docs:read:12"), "docs:read:12");  // no wildcard: all of it
  EXPECT_EQ(LiteralHeadOf("doc*:12"), "doc*:12");  // '*' inside a segment is literal there
}

TEST(LiteralHeadOf, APathPatternsHeadIsItsSegmentsBeforeTheFirstOneHoldingAStar) {
  EXPECT_EQ(LiteralHeadOf("/api/v1/*/edit"), "/api/v1");
  EXPECT_EQ(LiteralHeadOf("/api/v1/item*"), "/api/v1");
  EXPECT_EQ(LiteralHeadOf("/api/**"), "/api");
  EXPECT_EQ(LiteralHeadOf("/**"), "");
  EXPECT_EQ(LiteralHeadOf("/api/v1"), "/api/v1");
}

TEST(PermissionIndex, AnswersOnlyThePermissionsWhoseHeadTheRequestRepeats) {
  std::vector<Permission> permissions;
  for (int i = 0; i < 1000; ++i) {
    permissions.push_back(Allow(absl::StrCat("p", i), absl::StrCat("docs:", i, ":*"), {"read"}));
  }
  PermissionIndex index(permissions);
  std::vector<Permission> may_match;
  index.MayMatch("read", "docs:999:page", may_match);
  EXPECT_EQ(IdsOf(may_match), std::vector<std::string>{"p999"});
  index.MayMatch("read", "docs:1000:page", may_match);
  EXPECT_TRUE(may_match.empty());
  index.MayMatch("write", "docs:999:page", may_match);  // the action is not granted
  EXPECT_TRUE(may_match.empty());
  EXPECT_EQ(index.permissions().size(), 1000u);
}

TEST(PermissionIndex, KeepsCreationOrderAcrossHeads) {
  PermissionIndex index({Allow("deny_late", "docs:12:page", {"read"}), Allow("any", "*", {"*"}),
                         Allow("docs", "docs:*", {"read"}), Allow("other", "mail:*", {"read"}),
                         Allow("exact", "docs:12", {"read"}),
                         Allow("twelve", "docs:12:*", {"read", "write"})});
  std::vector<Permission> may_match;
  index.MayMatch("read", "docs:12:page", may_match);
  // "exact" (docs:12) shares the request's first two segments, so it is a candidate the engine
  // then turns down; "other" is not.
  EXPECT_EQ(IdsOf(may_match),
            (std::vector<std::string>{"deny_late", "any", "docs", "exact", "twelve"}));
}

// The property the engine relies on: whatever the patterns and the request, every permission
// that matches is answered (those that do not may be, and the engine turns them down).
TEST(PermissionIndex, NeverLeavesOutAPermissionThatMatches) {
  const std::vector<std::string> patterns = {
      "*",           "docs",    "docs:*",       "docs:12",      "docs:12:*", "docs:*:page",
      "*:12",        "*:*",     "docs:12:page", "doc*",         "docs:1",    "mail:*",
      "/",           "/**",     "/api",         "/api/*",       "/api/**",   "/api/v1/*/edit",
      "/api/v1",     "/api/v*", "/*/v1",        "/api/v1/item", "/**/edit",  "/api/v1/x*/edit",
      "docs:12:*:x", "/api/"};
  const std::vector<std::string> resources = {"docs",
                                              "docs:12",
                                              "docs:12:page",
                                              "docs:1",
                                              "docs:120",
                                              "docs:12:page:x",
                                              "mail:1",
                                              "doc*",
                                              "x",
                                              "/",
                                              "/api",
                                              "/api/v1",
                                              "/api/v1/x/edit",
                                              "/api/v1/xy/edit",
                                              "/api/v2",
                                              "/api/v1/item",
                                              "/api/",
                                              "/apix/v1",
                                              "/edit",
                                              "docs:12:a:x"};
  std::vector<Permission> permissions;
  for (size_t i = 0; i < patterns.size(); ++i) {
    permissions.push_back(Allow(absl::StrCat("p", i), patterns[i], {i % 3 == 0 ? "*" : "read"}));
  }
  PermissionIndex index(permissions);
  for (const std::string& resource : resources) {
    for (const char* action : {"read", "write"}) {
      std::vector<Permission> may_match;
      index.MayMatch(action, resource, may_match);
      std::vector<std::string> matching;
      for (const Permission& p : permissions) {
        if (ActionMatches(p.actions, action) && ResourceMatches(p.resource, resource)) {
          matching.push_back(p.id);
        }
      }
      std::vector<std::string> answered = IdsOf(may_match);
      size_t next = 0;  // matching must be a subsequence of answered: included, in order
      for (const std::string& id : answered) {
        if (next < matching.size() && matching[next] == id) ++next;
      }
      EXPECT_EQ(next, matching.size()) << action << " on " << resource;
    }
  }
}

}  // namespace
}  // namespace verdict
