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
      tokens_(options.check_burst) {}

absl::StatusOr<AdminActor> AdminAuthenticator::Authenticate(absl::string_view peer,
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
  if (absl::Status admitted = AdmitCheck(host); !admitted.ok()) return admitted;
  absl::StatusOr<bool> matches = SecretMatches(*secret);
  if (!matches.ok()) return matches.status();
  if (!*matches) {
    RecordFailure(host, clock_());
    return absl::UnauthenticatedError("invalid admin credential");
  }
  absl::MutexLock lock(&mu_);
  failures_.erase(host);
  if (passed_.size() >= options_.max_tracked_peers) passed_.clear();
  passed_.insert(host);
  return AdminActor{
      .principal = "admin", .method = AdminAuthMethod::kSecret, .peer = std::string(peer)};
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

absl::Status AdminAuthenticator::AdmitCheck(const std::string& peer_host) {
  const auto busy = [] {
    return absl::ResourceExhaustedError("too many admin credential checks at once: retry in 1 s");
  };
  absl::MutexLock lock(&mu_);
  Standing standing = Standing::kNew;
  if (auto it = failures_.find(peer_host); it != failures_.end() && it->second.count > 0) {
    standing = Standing::kFailing;
  } else if (passed_.contains(peer_host)) {
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

absl::StatusOr<bool> AdminAuthenticator::SecretMatches(absl::string_view secret) {
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
  check_done_.SignalAll();
  if (!stored.ok()) return stored.status();
  return matches;
}

void AdminAuthenticator::RecordFailure(const std::string& peer_host, absl::Time now) {
  absl::MutexLock lock(&mu_);
  passed_.erase(peer_host);
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
