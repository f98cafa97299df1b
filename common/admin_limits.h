// How large an admin message may be, shared by verdictd's admin listener and the verdict CLI:
// a policy document (policy import, --seed, policy export) travels whole in one message.
#ifndef VERDICT_COMMON_ADMIN_LIMITS_H_
#define VERDICT_COMMON_ADMIN_LIMITS_H_

namespace verdict {

// The largest policy document verdict reads.
inline constexpr int kMaxPolicyDocumentBytes = 64 << 20;
// An admin message: a whole policy document and the message around it.
inline constexpr int kMaxAdminMessageBytes = kMaxPolicyDocumentBytes + (1 << 20);

}  // namespace verdict

#endif  // VERDICT_COMMON_ADMIN_LIMITS_H_
