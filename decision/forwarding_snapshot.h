// Test doubles for wrapping a PolicyStore (testonly): a ReadSnapshot that answers every lookup
// from another snapshot, so that a test's wrapper overrides only the lookups it changes; a store
// whose read snapshots are so wrapped; and a store that cannot be reached.
//
//   class NoPermissions final : public ForwardingSnapshot {
//    public:
//     using ForwardingSnapshot::ForwardingSnapshot;
//     absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view) override {
//       return absl::UnavailableError("disk I/O error");
//     }
//   };
//   SnapshotWrappingStore store(memory, [](std::unique_ptr<ReadSnapshot> inner) {
//     return std::make_unique<NoPermissions>(std::move(inner));
//   });
#ifndef VERDICT_DECISION_FORWARDING_SNAPSHOT_H_
#define VERDICT_DECISION_FORWARDING_SNAPSHOT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/policy_store.h"

namespace verdict {

// Forwards PolicyView's own lookups to `inner`. The lookups PolicyView defines over them (the
// Ref and Span forms, PermissionsThatMayMatch, HoldsAllowPermission) are left to PolicyView, so
// that every lookup the engine makes passes through the overridable methods here.
class ForwardingSnapshot : public ReadSnapshot {
 public:
  explicit ForwardingSnapshot(std::unique_ptr<ReadSnapshot> inner) : inner_(std::move(inner)) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return inner_->FindAgent(agent_id);
  }
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    return inner_->FindAgentByTokenHash(token_sha256, now);
  }
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return inner_->PermissionsOf(agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    return inner_->ActiveDelegationsInto(agent_id, now);
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view agent_id,
                                                                  absl::string_view action,
                                                                  absl::string_view resource,
                                                                  absl::string_view arguments_hash,
                                                                  absl::Time now) override {
    return inner_->FindOpenApproval(agent_id, action, resource, arguments_hash, now);
  }
  absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) override {
    return inner_->CountPendingApprovals(agent_id, now, up_to);
  }
  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    return inner_->RateCount(agent_id, permission_id, window_start_unix);
  }
  absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view kid) override {
    return inner_->FindActiveSigningKey(kid);
  }
  absl::StatusOr<bool> IsTokenIdRevoked(absl::string_view jti) override {
    return inner_->IsTokenIdRevoked(jti);
  }

 private:
  std::unique_ptr<ReadSnapshot> inner_;
};

// `base`, whose read snapshots are wrapped by `wrap`; its write transactions are base's own.
class SnapshotWrappingStore final : public PolicyStore {
 public:
  using Wrap = std::function<std::unique_ptr<ReadSnapshot>(std::unique_ptr<ReadSnapshot>)>;
  SnapshotWrappingStore(PolicyStore& base, Wrap wrap) : base_(base), wrap_(std::move(wrap)) {}

  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> inner = base_.BeginRead();
    if (!inner.ok()) return inner.status();
    return wrap_(*std::move(inner));
  }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override {
    return base_.BeginWrite();
  }

 private:
  PolicyStore& base_;
  const Wrap wrap_;
};

// A store every snapshot and transaction of which fails UNAVAILABLE with `message`.
class UnreachableStore final : public PolicyStore {
 public:
  explicit UnreachableStore(std::string message) : message_(std::move(message)) {}

  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override {
    return absl::UnavailableError(message_);
  }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override {
    return absl::UnavailableError(message_);
  }

 private:
  const std::string message_;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_FORWARDING_SNAPSHOT_H_
