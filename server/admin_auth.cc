#include "server/admin_auth.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

constexpr absl::string_view kBearerScheme = "Bearer ";

// The secret of a "Bearer <secret>" header (the scheme's case is free, RFC 7235), or nullopt.
std::optional<absl::string_view> BearerSecret(absl::string_view authorization) {
  if (authorization.size() <= kBearerScheme.size() ||
      !absl::StartsWithIgnoreCase(authorization, kBearerScheme)) {
    return std::nullopt;
  }
  return absl::StripAsciiWhitespace(authorization.substr(kBearerScheme.size()));
}

}  // namespace

std::string PeerHost(absl::string_view peer) {
  if (absl::StartsWith(peer, "ipv4:") || absl::StartsWith(peer, "ipv6:")) {
    const size_t port_colon = peer.rfind(':');
    if (port_colon > 4) return std::string(peer.substr(0, port_colon));
  }
  return std::string(peer);
}

AdminAuthenticator::AdminAuthenticator(AdminCredentialStore& credentials, Clock clock,
                                       AdminAuthOptions options)
    : credentials_(credentials),
      clock_(std::move(clock)),
      options_(options),
      caller_backoff_(clock_, {.free_failures = options.free_failures,
                               .first_backoff = options.first_backoff,
                               .max_backoff = options.max_backoff,
                               .max_tracked_peers = options.max_tracked_peers}),
      peer_backoff_(clock_, {.free_failures = options.peer_free_failures,
                             .first_backoff = options.first_backoff,
                             .max_backoff = options.max_backoff,
                             .max_tracked_peers = options.max_tracked_peers}),
      tokens_(options.check_burst) {}

absl::StatusOr<AdminActor> AdminAuthenticator::Authenticate(absl::string_view peer,
                                                            absl::string_view authorization,
                                                            absl::string_view principal) {
  const std::string host = PeerHost(peer);
  // A name no principal can have is checked like an unknown one, under one key: what a caller
  // sends never grows the tables by more than a valid name's length.
  const bool valid_name = ValidatePrincipalName(principal).ok();
  const std::string key = absl::StrCat(host, "\n", valid_name ? principal : "");
  if (absl::Status waiting = caller_backoff_.Admit(key, "for this principal from this peer");
      !waiting.ok()) {
    return waiting;
  }
  if (absl::Status waiting = peer_backoff_.Admit(host); !waiting.ok()) return waiting;
  std::optional<absl::string_view> secret = BearerSecret(authorization);
  if (!secret || secret->empty()) {
    RecordFailure(key, host);
    return absl::UnauthenticatedError(
        "missing admin credential: send the metadata \"authorization: Bearer <secret>\"");
  }
  if (absl::Status admitted = AdmitCheck(key); !admitted.ok()) return admitted;
  absl::StatusOr<SecretCheck> checked = SecretMatches(valid_name ? principal : "", *secret);
  if (!checked.ok()) return checked.status();
  if (!checked->matches) {
    RecordFailure(key, host);
    return absl::UnauthenticatedError("invalid admin credential");
  }
  caller_backoff_.RecordSuccess(key);
  peer_backoff_.RecordSuccess(host);
  absl::MutexLock lock(&mu_);
  // A disabled principal's right secret earns no place ahead of others for the checks: its
  // calls are refused anyway (CurrentPrincipal).
  if (checked->enabled) {
    if (passed_.size() >= options_.max_tracked_peers) passed_.clear();
    passed_.insert(key);
  } else {
    passed_.erase(key);
  }
  return AdminActor{.principal = std::string(principal),
                    .method = AdminAuthMethod::kSecret,
                    .peer = std::string(peer)};
}

absl::StatusOr<AdminPrincipal> AdminAuthenticator::CurrentPrincipal(absl::string_view name) {
  absl::StatusOr<std::optional<StoredAdminPrincipal>> stored = credentials_.FindPrincipal(name);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) {
    return absl::PermissionDeniedError(
        absl::StrCat("admin principal \"", name, "\" does not exist"));
  }
  return std::move((*stored)->principal);
}

int AdminAuthenticator::WaitingPeers() {
  absl::MutexLock lock(&mu_);
  return waiting_passed_ + waiting_new_;
}

void AdminAuthenticator::RefillTokens(absl::Time now) {
  if (tokens_updated_ != absl::InfinitePast() && now > tokens_updated_) {
    tokens_ = std::min<double>(
        options_.check_burst,
        tokens_ + absl::ToDoubleSeconds(now - tokens_updated_) * options_.checks_per_second);
  }
  tokens_updated_ = std::max(tokens_updated_, now);
}

bool AdminAuthenticator::MayRunNow(Standing standing) const {
  if (checks_running_ >= options_.max_concurrent_checks) return false;
  switch (standing) {
    case Standing::kPassedBefore:  // spends no token: a busy admin script is not rate-limited
      return true;
    case Standing::kNew:
      return tokens_ >= 1 && waiting_passed_ == 0;
    case Standing::kFailing:
      return tokens_ >= 1 && waiting_passed_ == 0 && waiting_new_ == 0;
  }
  return false;
}

absl::Status AdminAuthenticator::AdmitCheck(const std::string& key) {
  const auto busy = [] {
    return absl::ResourceExhaustedError("too many admin credential checks at once: retry in 1 s");
  };
  absl::MutexLock lock(&mu_);
  Standing standing = Standing::kNew;
  if (caller_backoff_.HasFailed(key)) {
    standing = Standing::kFailing;
  } else if (passed_.contains(key)) {
    standing = Standing::kPassedBefore;
  }
  RefillTokens(clock_());
  if (!MayRunNow(standing)) {
    // A failing peer never waits, so it never holds back a peer that waits.
    if (standing == Standing::kFailing) return busy();
    if (standing == Standing::kNew && waiting_new_ >= options_.max_waiting_new_peers) {
      return busy();
    }
    int& waiting = standing == Standing::kNew ? waiting_new_ : waiting_passed_;
    ++waiting;
    const absl::Time give_up = absl::Now() + options_.max_check_wait;
    while (!MayRunNow(standing)) {
      const absl::Time now = absl::Now();
      if (now >= give_up) {
        --waiting;
        check_done_.SignalAll();  // a peer of a lower standing may run now
        return busy();
      }
      // Woken when a check ends; tokens come back with the clock, looked at every 20 ms.
      check_done_.WaitWithTimeout(&mu_, std::min(give_up - now, absl::Milliseconds(20)));
      RefillTokens(clock_());
    }
    --waiting;
  }
  ++checks_running_;
  if (standing != Standing::kPassedBefore) tokens_ -= 1;
  return absl::OkStatus();
}

absl::StatusOr<AdminAuthenticator::SecretCheck> AdminAuthenticator::SecretMatches(
    absl::string_view principal, absl::string_view secret) {
  absl::StatusOr<std::optional<StoredAdminPrincipal>> stored = std::nullopt;
  if (!principal.empty()) stored = credentials_.FindPrincipal(principal);
  SecretCheck checked;
  if (stored.ok()) {
    if (stored->has_value()) {
      checked.matches = VerifySecret((*stored)->secret_hash, secret);
      checked.enabled = (*stored)->principal.enabled;
    } else {
      // No such principal: spend what a check spends, so timing does not tell that none exists.
      BurnVerificationTime(options_.hash_params);
    }
  }
  absl::MutexLock lock(&mu_);
  --checks_running_;
  check_done_.SignalAll();
  if (!stored.ok()) return stored.status();
  return checked;
}

void AdminAuthenticator::RecordFailure(const std::string& key, const std::string& peer_host) {
  {
    absl::MutexLock lock(&mu_);
    passed_.erase(key);
  }
  caller_backoff_.RecordFailure(key);
  peer_backoff_.RecordFailure(peer_host);
}

}  // namespace verdict
