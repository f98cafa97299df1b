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
    : credentials_(credentials), clock_(std::move(clock)), options_(options) {}

absl::Status AdminAuthenticator::Authenticate(absl::string_view peer,
                                              absl::string_view authorization) {
  const std::string host = PeerHost(peer);
  {
    absl::MutexLock lock(&mu_);
    auto it = failures_.find(host);
    const absl::Time now = clock_();
    if (it != failures_.end() && now < it->second.retry_after) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "too many failed admin credentials from this peer: retry in ",
          absl::ToInt64Seconds(absl::Ceil(it->second.retry_after - now, absl::Seconds(1))), " s"));
    }
  }
  std::optional<absl::string_view> secret = BearerSecret(authorization);
  if (!secret || secret->empty()) {
    RecordFailure(host, clock_());
    return absl::UnauthenticatedError(
        "missing admin credential: send the metadata \"authorization: Bearer <secret>\"");
  }
  absl::StatusOr<bool> matches = SecretMatches(*secret);
  if (!matches.ok()) return matches.status();
  if (!*matches) {
    RecordFailure(host, clock_());
    return absl::UnauthenticatedError("invalid admin credential");
  }
  absl::MutexLock lock(&mu_);
  failures_.erase(host);
  return absl::OkStatus();
}

absl::StatusOr<bool> AdminAuthenticator::SecretMatches(absl::string_view secret) {
  {
    absl::MutexLock lock(&mu_);
    auto slot_free = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return checks_running_ < options_.max_concurrent_checks;
    };
    mu_.Await(absl::Condition(&slot_free));
    ++checks_running_;
  }
  absl::StatusOr<std::optional<std::string>> stored = credentials_.SecretHash();
  bool matches = false;
  if (stored.ok()) {
    if (stored->has_value()) {
      matches = VerifySecret(**stored, secret);
    } else {
      // No credential: spend what a check spends, so timing does not tell that none exists.
      BurnVerificationTime(options_.hash_params);
    }
  }
  absl::MutexLock lock(&mu_);
  --checks_running_;
  if (!stored.ok()) return stored.status();
  return matches;
}

void AdminAuthenticator::RecordFailure(const std::string& peer_host, absl::Time now) {
  absl::MutexLock lock(&mu_);
  if (!failures_.contains(peer_host) && failures_.size() >= options_.max_tracked_peers) {
    ForgetIdlePeers(now);
    if (failures_.size() >= options_.max_tracked_peers) return;
  }
  PeerFailures& failures = failures_[peer_host];
  ++failures.count;
  const int doublings = failures.count - options_.free_failures;
  if (doublings < 0) return;
  const absl::Duration backoff = std::min(
      options_.first_backoff * (int64_t{1} << std::min(doublings, 30)), options_.max_backoff);
  failures.retry_after = now + backoff;
}

void AdminAuthenticator::ForgetIdlePeers(absl::Time now) {
  absl::erase_if(failures_, [now](const auto& entry) { return entry.second.retry_after <= now; });
}

}  // namespace verdict
